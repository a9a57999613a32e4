import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';

let selfHosted: TestServer;
let hosted: TestServer;
const ORG = 'understudy';
const ORG_POLICY = `/organizations/${ORG}/relationships/data-retention-policy`;
const DELETE_OLDER = 'data-retention-policy-delete-olders';
const DONT_DELETE = 'data-retention-policy-dont-deletes';

beforeAll(async () => {
  [selfHosted, hosted] = await Promise.all([startServer(), startServer({ UNDERSTUDY_EDITION: 'hosted' })]);
});
afterAll(async () => {
  await Promise.all([selfHosted.close(), hosted.close()]);
});

// DataRetentionPolicyDeleteOlderSetOptions / …DontDeleteSetOptions as go-tfe marshals them.
const deleteOlder = (days: unknown) => ({ data: { type: DELETE_OLDER, attributes: { 'delete-older-than-n-days': days } } });
const dontDelete = { data: { type: DONT_DELETE } };
const set = (path: string, body: unknown, token?: string) => platform(selfHosted, 'POST', path, { body, ...(token ? { token } : {}) });
const relationshipOf = async (path: string) => (await platform(selfHosted, 'GET', path)).body.data.relationships['data-retention-policy'];

async function workspace(name: string): Promise<string> {
  const created = await platform(selfHosted, 'POST', `/organizations/${ORG}/workspaces`, {
    body: { data: { type: 'workspaces', attributes: { name } } },
  });
  expect(created.status).toBe(201);
  return created.body.data.id as string;
}

/** A member of the organization with no team flags and no workspace access. */
async function memberToken(): Promise<string> {
  const team = await platform(selfHosted, 'POST', `/organizations/${ORG}/teams`, {
    body: { data: { type: 'teams', attributes: { name: `drp-readers-${Date.now()}` } } },
  });
  const token = await platform(selfHosted, 'POST', `/teams/${team.body.data.id}/authentication-token`, {
    body: { data: { type: 'authentication-tokens' } },
  });
  return token.body.data.attributes.token as string;
}

/** The sequence of TestOrganization_DataRetentionPolicy / TestWorkspace_DataRetentionPolicy against one owner. */
async function lifecycle(policyPath: string, ownerPath: string): Promise<void> {
  expect((await platform(selfHosted, 'GET', policyPath)).body).toEqual({ data: null });
  expect(await relationshipOf(ownerPath)).toBeUndefined();

  const created = await set(policyPath, deleteOlder(33));
  expect(created.status).toBe(201);
  expect(created.body.data).toMatchObject({ type: DELETE_OLDER, attributes: { 'delete-older-than-n-days': 33 } });
  const id = created.body.data.id as string;
  expect(id).toMatch(/^drp-/);
  expect((await platform(selfHosted, 'GET', policyPath)).body.data).toEqual(created.body.data);
  expect((await relationshipOf(ownerPath)).data).toEqual({ id, type: DELETE_OLDER });

  // The same kind again keeps the id.
  const shorter = await set(policyPath, deleteOlder(1));
  expect([shorter.body.data.id, shorter.body.data.attributes['delete-older-than-n-days']]).toEqual([id, 1]);

  const kept = await set(policyPath, dontDelete);
  expect(kept.status).toBe(201);
  expect(kept.body.data).toMatchObject({ type: DONT_DELETE, attributes: {} });
  expect(kept.body.data.id).toMatch(/^drp-/);
  expect(kept.body.data.id).not.toBe(id);
  expect((await relationshipOf(ownerPath)).data).toEqual({ id: kept.body.data.id, type: DONT_DELETE });

  const back = await set(policyPath, deleteOlder(20));
  expect((await platform(selfHosted, 'GET', policyPath)).body.data).toMatchObject({
    id: back.body.data.id,
    attributes: { 'delete-older-than-n-days': 20 },
  });

  // A refused body changes nothing.
  for (const [body, pointer] of [
    [deleteOlder(0), '/data/attributes/delete-older-than-n-days'],
    [deleteOlder('30'), '/data/attributes/delete-older-than-n-days'],
    [deleteOlder(null), '/data/attributes/delete-older-than-n-days'],
    [{ data: { type: 'data-retention-policies', attributes: { 'delete-older-than-n-days': 3 } } }, '/data/type'],
  ] as const) {
    const refused = await set(policyPath, body);
    expect([refused.status, refused.body.errors[0].source.pointer], JSON.stringify(body)).toEqual([422, pointer]);
  }
  expect((await platform(selfHosted, 'GET', policyPath)).body.data.attributes['delete-older-than-n-days']).toBe(20);

  expect((await platform(selfHosted, 'DELETE', policyPath)).status).toBe(204);
  expect((await platform(selfHosted, 'GET', policyPath)).body).toEqual({ data: null });
  expect(await relationshipOf(ownerPath)).toBeUndefined();
}

describe('data retention policies (self-hosted)', () => {
  it('sets, changes, replaces and deletes an organization policy', async () => {
    await lifecycle(ORG_POLICY, `/organizations/${ORG}`);
  });

  it('sets, changes, replaces and deletes a workspace policy; the workspace reads the same in show and list', async () => {
    const id = await workspace('retained');
    await lifecycle(`/workspaces/${id}/relationships/data-retention-policy`, `/workspaces/${id}`);
    await set(`/workspaces/${id}/relationships/data-retention-policy`, deleteOlder(7));
    const shown = await platform(selfHosted, 'GET', `/workspaces/${id}`);
    const listed = await platform(selfHosted, 'GET', `/organizations/${ORG}/workspaces?search%5Bname%5D=retained`);
    expect(listed.body.data.find((item: { id: string }) => item.id === id)).toEqual(shown.body.data);
    // Another workspace has none of its own.
    expect(await relationshipOf(`/workspaces/${await workspace('unretained')}`)).toBeUndefined();
  });

  it('lets members read the organization policy but only owners change it; a hidden workspace is a 404', async () => {
    const token = await memberToken();
    await set(ORG_POLICY, deleteOlder(90));
    const read = await platform(selfHosted, 'GET', ORG_POLICY, { token });
    expect([read.status, read.body.data.attributes['delete-older-than-n-days']]).toEqual([200, 90]);
    expect((await set(ORG_POLICY, dontDelete, token)).status).toBe(404);
    expect((await platform(selfHosted, 'DELETE', ORG_POLICY, { token })).status).toBe(404);
    expect((await platform(selfHosted, 'GET', ORG_POLICY)).body.data.type).toBe(DELETE_OLDER);

    const id = await workspace('guarded');
    const path = `/workspaces/${id}/relationships/data-retention-policy`;
    expect((await platform(selfHosted, 'GET', path, { token })).status).toBe(404);
    expect((await set(path, deleteOlder(3), token)).status).toBe(404);
    expect((await platform(selfHosted, 'GET', path)).body).toEqual({ data: null });
    expect((await platform(selfHosted, 'GET', '/workspaces/ws-missing/relationships/data-retention-policy')).status).toBe(404);
  });
});

describe('data retention policies (hosted)', () => {
  it('do not exist: every route is a 404 and nothing shows the relationship', async () => {
    expect((await platform(hosted, 'GET', ORG_POLICY)).status).toBe(404);
    expect((await platform(hosted, 'POST', ORG_POLICY, { body: deleteOlder(3) })).status).toBe(404);
    expect((await platform(hosted, 'GET', `/organizations/${ORG}`)).body.data.relationships['data-retention-policy']).toBeUndefined();
  });
});
