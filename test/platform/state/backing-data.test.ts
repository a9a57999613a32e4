import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { createRun, simpleConfig, uploadConfiguration } from '../runs/helpers.js';
import { startWorld, workspaceWithLevels, type World } from '../workspaces/world.js';
import { md5, stateFile } from './state-file.js';

const LINEAGE = '0b5d1c7e-aaaa-bbbb-cccc-ddddeeeeffff';
const ACTIONS = ['soft_delete_backing_data', 'restore_backing_data', 'permanently_delete_backing_data'] as const;
type Action = (typeof ACTIONS)[number];

/** go-tfe's manageBackingData: a POST with the JSON:API media type and no body. */
async function goTfeAction(
  server: TestServer,
  kind: 'state-versions' | 'configuration-versions',
  id: string,
  action: Action,
  token = ADMIN_TOKEN,
) {
  const response = await fetch(`${server.baseUrl}/api/v2/${kind}/${id}/actions/${action}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/vnd.api+json', accept: 'application/vnd.api+json' },
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    body: text === '' ? undefined : (JSON.parse(text) as { errors: { title: string; detail: string }[] }),
  };
}

const download = async (url: string) => {
  const response = await fetch(url);
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
};

let world: World;
let hosted: TestServer;

beforeAll(async () => {
  [world, hosted] = await Promise.all([startWorld(), startServer({ UNDERSTUDY_EDITION: 'hosted' })]);
});
afterAll(async () => {
  await Promise.all([world.close(), hosted.close()]);
});

/** A workspace with two finalized state versions (createStateVersion twice, as go-tfe's test does): [older, current]. */
async function twoStateVersions(name: string) {
  const workspace = (await workspaceWithLevels(world, name)).id;
  expect((await platform(world.server, 'POST', `/workspaces/${workspace}/actions/lock`)).status).toBe(200);
  const versions = [];
  for (const serial of [1, 2]) {
    const state = stateFile(serial, LINEAGE, { count: 1, greeting: `${name}-${serial}` });
    const created = await platform(world.server, 'POST', `/workspaces/${workspace}/state-versions`, {
      body: {
        data: { type: 'state-versions', attributes: { serial, lineage: LINEAGE, md5: md5(state), state: state.toString('base64') } },
      },
    });
    expect(created.status).toBe(201);
    versions.push({ id: created.body.data.id as string, url: created.body.data.attributes['hosted-state-download-url'] as string, state });
  }
  expect((await platform(world.server, 'POST', `/workspaces/${workspace}/actions/unlock`)).status).toBe(200);
  return { workspace, older: versions[0]!, current: versions[1]! };
}

/** The bytes the store holds for a version, read past the API (the API never shows them once deleted). */
const storedBytes = (table: 'state_versions' | 'configuration_versions', column: 'state' | 'archive', id: string) =>
  (world.server.app.runtime.store.sqlite.prepare(`SELECT ${column} AS data FROM ${table} WHERE id = ?`).get(id) as { data: Buffer | null })
    .data;

const stateStatus = async (id: string) => (await platform(world.server, 'GET', `/state-versions/${id}`)).body.data.attributes.status;

describe('state version backing data (TestStateVersions_ManageBackingData)', () => {
  const act = (id: string, action: Action, token?: string) => goTfeAction(world.server, 'state-versions', id, action, token);

  it('soft delete hides the download, restore brings it back, permanent delete removes it and restore then fails', async () => {
    const { older } = await twoStateVersions('backing-sv');
    expect((await download(older.url)).bytes).toEqual(older.state);

    const soft = await act(older.id, 'soft_delete_backing_data');
    expect([soft.status, soft.text]).toEqual([204, '']);
    expect(await stateStatus(older.id)).toBe('backing_data_soft_deleted');
    expect((await download(older.url)).status).toBe(404);
    // The record stays readable: its outputs are kept, and it offers no download link.
    const shown = (await platform(world.server, 'GET', `/state-versions/${older.id}`)).body.data;
    expect(shown.attributes['hosted-state-download-url']).toBeNull();
    expect(shown.attributes['resources-processed']).toBe(true);
    expect(shown.relationships.outputs.data).toHaveLength(3);
    expect(storedBytes('state_versions', 'state', older.id)?.equals(older.state)).toBe(true);

    expect((await act(older.id, 'restore_backing_data')).status).toBe(204);
    expect(await stateStatus(older.id)).toBe('finalized');
    const restored = await download(older.url);
    expect([restored.status, restored.bytes.equals(older.state)]).toEqual([200, true]);

    expect((await act(older.id, 'soft_delete_backing_data')).status).toBe(204);
    expect((await act(older.id, 'permanently_delete_backing_data')).status).toBe(204);
    expect(await stateStatus(older.id)).toBe('backing_data_permanently_deleted');
    expect(storedBytes('state_versions', 'state', older.id)).toBeNull();

    const refused = await act(older.id, 'restore_backing_data');
    expect(refused.status).toBe(409);
    expect(refused.body?.errors[0]?.title).toBe('transition not allowed');
    expect(await stateStatus(older.id)).toBe('backing_data_permanently_deleted');
    expect((await download(older.url)).status).toBe(404);
  });

  it('refuses moves the statuses do not allow (409, nothing changes), and the current version', async () => {
    const { workspace, older, current } = await twoStateVersions('backing-sv-refusals');
    const refusedWith = async (id: string, action: Action) => {
      const answer = await act(id, action);
      expect(answer.status).toBe(409);
      expect(answer.body?.errors[0]?.title).toBe('transition not allowed');
      return answer.body?.errors[0]?.detail;
    };

    expect(await refusedWith(current.id, 'soft_delete_backing_data')).toContain('current');
    expect(await stateStatus(current.id)).toBe('finalized');
    expect((await download(current.url)).status).toBe(200);

    expect(await refusedWith(older.id, 'restore_backing_data')).toContain('finalized');
    expect(await refusedWith(older.id, 'permanently_delete_backing_data')).toContain('finalized');
    expect(await stateStatus(older.id)).toBe('finalized');

    expect((await act(older.id, 'soft_delete_backing_data')).status).toBe(204);
    expect(await refusedWith(older.id, 'soft_delete_backing_data')).toContain('backing_data_soft_deleted');

    // A soft-deleted version cannot be rolled back to; the workspace's current state is untouched.
    expect((await platform(world.server, 'POST', `/workspaces/${workspace}/actions/lock`)).status).toBe(200);
    const rollback = await platform(world.server, 'POST', `/workspaces/${workspace}/state-versions`, {
      body: {
        data: { type: 'state-versions', relationships: { 'rollback-state-version': { data: { type: 'state-versions', id: older.id } } } },
      },
    });
    expect(rollback.status).toBe(422);
    expect((await platform(world.server, 'GET', `/workspaces/${workspace}/current-state-version`)).body.data.id).toBe(current.id);
  });

  it('takes workspace admin: writers, strangers and unknown ids get 404', async () => {
    const { older } = await twoStateVersions('backing-sv-rights');
    expect((await act(older.id, 'soft_delete_backing_data', world.principals['wswrite'])).status).toBe(404);
    expect((await act(older.id, 'soft_delete_backing_data', world.principals['outsider'])).status).toBe(404);
    expect(await stateStatus(older.id)).toBe('finalized');
    expect((await act(older.id, 'soft_delete_backing_data', world.principals['wsadmin'])).status).toBe(204);
    expect((await act('sv-unknown', 'restore_backing_data')).status).toBe(404);
  });
});

describe('configuration version backing data (TestConfigurationVersions_ManageBackingData)', () => {
  const act = (id: string, action: Action, token?: string) => goTfeAction(world.server, 'configuration-versions', id, action, token);
  const cvStatus = async (id: string) => (await platform(world.server, 'GET', `/configuration-versions/${id}`)).body.data.attributes.status;
  const cvDownload = (id: string) => platform(world.server, 'GET', `/configuration-versions/${id}/download`);

  it('soft delete hides the download, restore brings it back, permanent delete removes it and restore then fails', async () => {
    const workspace = (await workspaceWithLevels(world, 'backing-cv')).id;
    const older = await uploadConfiguration(world.server, workspace, simpleConfig('old'));
    const current = await uploadConfiguration(world.server, workspace, simpleConfig('new'));
    const before = await fetch(`${world.server.baseUrl}/api/v2/configuration-versions/${older}/download`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    const slug = Buffer.from(await before.arrayBuffer());
    expect(before.status).toBe(200);

    const soft = await act(older, 'soft_delete_backing_data');
    expect([soft.status, soft.text]).toEqual([200, '']);
    expect(await cvStatus(older)).toBe('backing_data_soft_deleted');
    expect((await cvDownload(older)).status).toBe(404);
    expect(storedBytes('configuration_versions', 'archive', older)?.equals(slug)).toBe(true);
    // No run can use it meanwhile (a 4xx, never a 5xx).
    const run = await createRun(world.server, workspace, {}, older);
    expect(run.status).toBe(422);

    expect((await act(older, 'restore_backing_data')).status).toBe(200);
    expect(await cvStatus(older)).toBe('uploaded');
    const again = await fetch(`${world.server.baseUrl}/api/v2/configuration-versions/${older}/download`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect([again.status, Buffer.from(await again.arrayBuffer()).equals(slug)]).toEqual([200, true]);

    expect((await act(older, 'soft_delete_backing_data')).status).toBe(200);
    expect((await act(older, 'permanently_delete_backing_data')).status).toBe(200);
    expect(await cvStatus(older)).toBe('backing_data_permanently_deleted');
    expect(storedBytes('configuration_versions', 'archive', older)).toBeNull();
    const refused = await act(older, 'restore_backing_data');
    expect(refused.status).toBe(409);
    expect(refused.body?.errors[0]?.title).toBe('transition not allowed');
    expect((await cvDownload(older)).status).toBe(404);

    // The current version is never soft deleted.
    const currentRefused = await act(current, 'soft_delete_backing_data');
    expect([currentRefused.status, currentRefused.body?.errors[0]?.title]).toEqual([409, 'transition not allowed']);
    expect(await cvStatus(current)).toBe('uploaded');
  });

  it('refuses moves from the wrong status and callers without admin', async () => {
    const workspace = (await workspaceWithLevels(world, 'backing-cv-refusals')).id;
    const older = await uploadConfiguration(world.server, workspace, simpleConfig('old'));
    await uploadConfiguration(world.server, workspace, simpleConfig('new'));
    for (const action of ['restore_backing_data', 'permanently_delete_backing_data'] as const) {
      expect((await act(older, action)).status).toBe(409);
    }
    expect((await act(older, 'soft_delete_backing_data', world.principals['wswrite'])).status).toBe(404);
    expect((await act(older, 'soft_delete_backing_data', world.principals['outsider'])).status).toBe(404);
    expect(await cvStatus(older)).toBe('uploaded');
    expect((await act('cv-unknown', 'soft_delete_backing_data')).status).toBe(404);
  });
});

describe('hosted edition', () => {
  it('has no backing-data actions (404)', async () => {
    const created = await platform(hosted, 'POST', `/organizations/understudy/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name: 'backing-hosted' } } },
    });
    const cv = await uploadConfiguration(hosted, created.body.data.id, simpleConfig('x'));
    for (const action of ACTIONS) {
      expect((await goTfeAction(hosted, 'configuration-versions', cv, action)).status).toBe(404);
      expect((await goTfeAction(hosted, 'state-versions', 'sv-anything', action)).status).toBe(404);
    }
    expect((await platform(hosted, 'GET', `/configuration-versions/${cv}`)).body.data.attributes.status).toBe('uploaded');
  });
});
