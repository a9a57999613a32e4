import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { control, ORG, startWorld, workspaceWithLevels, type World } from '../workspaces/world.js';
import { deadUrl, startReceiver, type Receiver } from './receiver.js';

const WORKSPACE_TRIGGERS = [
  'run:created',
  'run:planning',
  'run:needs_attention',
  'run:applying',
  'run:completed',
  'run:errored',
  'assessment:drifted',
  'assessment:failed',
  'assessment:check_failure',
  'workspace:auto_destroy_reminder',
  'workspace:auto_destroy_run_results',
];

/** The body go-tfe sends on create: set attributes, subscribable, users only when given. */
function createBody(attributes: Record<string, unknown>, extra: { users?: string[]; subscribable?: { type: string; id: string } } = {}) {
  return {
    data: {
      type: 'notification-configurations',
      attributes,
      relationships: {
        ...(extra.subscribable ? { subscribable: { data: extra.subscribable } } : {}),
        ...(extra.users ? { users: { data: extra.users.map((id) => ({ type: 'users', id })) } } : {}),
      },
    },
  };
}

const RFC3339_SECONDS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe('notification configurations', () => {
  let world: World;
  let receiver: Receiver;
  let ws: string;
  const call = (method: string, path: string, body?: unknown, token?: string) =>
    platform(world.server, method, path, { ...(body === undefined ? {} : { body }), ...(token ? { token } : {}) });
  const create = (attributes: Record<string, unknown>, extra: Parameters<typeof createBody>[1] = {}, on = `/workspaces/${ws}`) =>
    call('POST', `${on}/notification-configurations`, createBody(attributes, extra));
  const generic = (extra: Record<string, unknown> = {}) => ({
    'destination-type': 'generic',
    enabled: false,
    name: 'hook',
    url: receiver.url,
    ...extra,
  });

  beforeAll(async () => {
    world = await startWorld();
    receiver = await startReceiver('s3cret');
    ws = (await workspaceWithLevels(world, 'notified')).id;
  });
  afterAll(async () => {
    await receiver.close();
    await world.close();
  });

  it('creates a generic configuration whose list item equals the create response, token never returned', async () => {
    const created = await create(generic({ token: 's3cret', triggers: ['run:created', 'run:errored'] }), {
      subscribable: { type: 'workspaces', id: ws },
    });
    expect(created.status).toBe(201);
    const { data } = created.body;
    expect(data.id).toMatch(/^nc-/);
    expect(data.type).toBe('notification-configurations');
    expect(data.attributes).toMatchObject({
      'destination-type': 'generic',
      enabled: false,
      name: 'hook',
      token: null,
      triggers: ['run:created', 'run:errored'],
      url: receiver.url,
      'delivery-responses': [],
    });
    expect(data.attributes['created-at']).toMatch(/Z$/);
    expect(data.relationships.subscribable.data).toEqual({ type: 'workspaces', id: ws });
    expect(data.relationships.users.data).toEqual([]);
    expect(data.links.self).toBe(`/api/v2/notification-configurations/${data.id}`);
    expect(JSON.stringify(created.body)).not.toContain('s3cret');

    // Unpaginated without page parameters: no meta, no links (the Go client reads 0 and 0).
    const listed = await call('GET', `/workspaces/${ws}/notification-configurations`);
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ data: [data] });
    const page = await call('GET', `/workspaces/${ws}/notification-configurations?page%5Bnumber%5D=999&page%5Bsize%5D=100`);
    expect(page.body.data).toEqual([]);
    expect(page.body.meta.pagination).toMatchObject({ 'current-page': 999, 'total-count': 1 });

    const shown = await call('GET', `/notification-configurations/${data.id}`);
    expect(shown.body.data).toEqual(data);
    expect((await call('DELETE', `/notification-configurations/${data.id}`)).status).toBe(204);
    expect((await call('GET', `/notification-configurations/${data.id}`)).status).toBe(404);
    expect((await call('DELETE', `/notification-configurations/${data.id}`)).status).toBe(404);
  });

  it("accepts each of the eleven workspace triggers, and the documentation's singular type", async () => {
    for (const trigger of WORKSPACE_TRIGGERS) {
      const created = await create(generic({ name: `t-${trigger}`, triggers: [trigger] }));
      expect(created.status, trigger).toBe(201);
      expect(created.body.data.attributes.triggers).toEqual([trigger]);
      await call('DELETE', `/notification-configurations/${created.body.data.id}`);
    }
    const singular = await call('POST', `/workspaces/${ws}/notification-configurations`, {
      data: { type: 'notification-configuration', attributes: generic() },
    });
    expect(singular.status).toBe(201);
    await call('DELETE', `/notification-configurations/${singular.body.data.id}`);
  });

  it.each([
    ['no name', { 'destination-type': 'generic', enabled: false, url: 'http://example.test' }, '/data/attributes/name'],
    ['a blank name', { 'destination-type': 'generic', name: '  ', url: 'http://example.test' }, '/data/attributes/name'],
    ['no destination type', { name: 'n', url: 'http://example.test' }, '/data/attributes/destination-type'],
    ['an unknown destination type', { name: 'n', 'destination-type': 'pager', url: 'http://x.test' }, '/data/attributes/destination-type'],
    ['a slack destination without url', { name: 'n', 'destination-type': 'slack' }, '/data/attributes/url'],
    ['a teams destination without url', { name: 'n', 'destination-type': 'microsoft-teams' }, '/data/attributes/url'],
    ['a generic destination without url', { name: 'n', 'destination-type': 'generic' }, '/data/attributes/url'],
    ['a url that is not http', { name: 'n', 'destination-type': 'generic', url: 'ftp://x.test' }, '/data/attributes/url'],
    [
      'an unknown trigger',
      { name: 'n', 'destination-type': 'generic', url: 'http://x.test', triggers: ['run:created', 'run:exploded'] },
      '/data/attributes/triggers/1',
    ],
    [
      'a team trigger on a workspace',
      { name: 'n', 'destination-type': 'generic', url: 'http://x.test', triggers: ['change_request:created'] },
      '/data/attributes/triggers/0',
    ],
    ['a token for slack', { name: 'n', 'destination-type': 'slack', url: 'http://x.test', token: 'k' }, '/data/attributes/token'],
    ['a url for email', { name: 'n', 'destination-type': 'email', url: 'http://x.test' }, '/data/attributes/url'],
    [
      'email addresses for generic',
      { name: 'n', 'destination-type': 'generic', url: 'http://x.test', 'email-addresses': ['a@b.test'] },
      '/data/attributes/email-addresses',
    ],
    [
      'a bad email address',
      { name: 'n', 'destination-type': 'email', 'email-addresses': ['not-an-address'] },
      '/data/attributes/email-addresses/0',
    ],
    ['enabled as a number', { name: 'n', 'destination-type': 'generic', url: 'http://x.test', enabled: 1 }, '/data/attributes/enabled'],
    [
      'triggers as a string',
      { name: 'n', 'destination-type': 'generic', url: 'http://x.test', triggers: 'run:created' },
      '/data/attributes/triggers',
    ],
  ])('refuses %s with a 422 naming the attribute, and creates nothing', async (_, attributes, pointer) => {
    const refused = await create(attributes);
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].source.pointer).toBe(pointer);
    expect((await call('GET', `/workspaces/${ws}/notification-configurations`)).body.data).toEqual([]);
  });

  it('refuses email users who are not members of the organization, and users on a URL destination', async () => {
    const outsiderId = (await platform(world.server, 'GET', '/account/details', { token: world.principals.outsider })).body.data.id;
    const refused = await create({ name: 'mail', 'destination-type': 'email', enabled: false }, { users: [outsiderId] });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].source.pointer).toBe('/data/relationships/users/data/0');
    const memberId = (await platform(world.server, 'GET', '/account/details', { token: world.principals.member })).body.data.id;
    const onGeneric = await create(generic(), { users: [memberId] });
    expect(onGeneric.status).toBe(422);
    expect(onGeneric.body.errors[0].source.pointer).toBe('/data/relationships/users');
  });

  it('keeps email users as identifiers only; an update without users clears them', async () => {
    const memberId = (await platform(world.server, 'GET', '/account/details', { token: world.principals.member })).body.data.id;
    const created = await create(
      { name: 'mail', 'destination-type': 'email', enabled: false, 'email-addresses': ['ops@acme.test'] },
      { users: [memberId] },
    );
    expect(created.status).toBe(201);
    expect(created.body.data.relationships.users.data).toEqual([{ type: 'users', id: memberId }]);
    expect(created.body.included).toBeUndefined();
    expect(created.body.data.attributes).toMatchObject({ url: null, 'email-addresses': ['ops@acme.test'] });
    const patched = await call('PATCH', `/notification-configurations/${created.body.data.id}`, {
      data: { type: 'notification-configurations', attributes: { enabled: true, name: 'renamed' } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.attributes).toMatchObject({ enabled: true, name: 'renamed', 'email-addresses': ['ops@acme.test'] });
    expect(patched.body.data.relationships.users.data).toEqual([]);
    await call('DELETE', `/notification-configurations/${created.body.data.id}`);
  });

  it('verifies an enabled URL destination before saving: signed verification payload, response recorded', async () => {
    receiver.received.length = 0;
    const created = await create(generic({ enabled: true, token: 's3cret', name: 'live' }));
    expect(created.status).toBe(201);
    expect(receiver.received).toHaveLength(1);
    const [verification] = receiver.received;
    expect(verification?.verified).toBe(true);
    expect(verification?.headers['content-type']).toBe('application/json');
    expect(verification?.json).toEqual({
      payload_version: 1,
      notification_configuration_id: created.body.data.id,
      run_url: null,
      run_id: null,
      run_message: null,
      run_created_at: null,
      run_created_by: null,
      workspace_id: null,
      workspace_name: null,
      organization_name: null,
      notifications: [
        { message: 'Verification of live', trigger: 'verification', run_status: null, run_updated_at: null, run_updated_by: null },
      ],
    });
    const [response] = created.body.data.attributes['delivery-responses'];
    expect(response).toMatchObject({ url: receiver.url, code: '200', successful: 'true', body: 'answered 200' });
    expect(response.headers['x-receiver']).toEqual(['test']);
    expect(response['sent-at']).toMatch(RFC3339_SECONDS);

    // The verify action sends it again and answers with the configuration.
    const verified = await call('POST', `/notification-configurations/${created.body.data.id}/actions/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body.data.id).toBe(created.body.data.id);
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]?.verified).toBe(true);
    expect((await call('POST', '/notification-configurations/nonexisting/actions/verify')).status).toBe(404);
    await call('DELETE', `/notification-configurations/${created.body.data.id}`);
  });

  it('saves nothing when the destination answers an error or cannot be reached (400)', async () => {
    receiver.status = 500;
    const refused = await create(generic({ enabled: true, name: 'broken' }));
    receiver.status = 200;
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].detail).toBe('Unable to complete verification request to destination URL');
    const unreachable = await create(generic({ enabled: true, url: await deadUrl() }));
    expect(unreachable.status).toBe(400);
    expect((await call('GET', `/workspaces/${ws}/notification-configurations`)).body.data).toEqual([]);

    // An update that enables a configuration whose destination fails changes nothing either.
    const created = await create(generic({ name: 'later', url: await deadUrl() }));
    const enabling = await call('PATCH', `/notification-configurations/${created.body.data.id}`, {
      data: { type: 'notification-configurations', attributes: { enabled: true } },
    });
    expect(enabling.status).toBe(400);
    expect((await call('GET', `/notification-configurations/${created.body.data.id}`)).body.data.attributes.enabled).toBe(false);
    const verify = await call('POST', `/notification-configurations/${created.body.data.id}/actions/verify`);
    expect(verify.status).toBe(400);
    await call('DELETE', `/notification-configurations/${created.body.data.id}`);
  });

  it('updates: renames, replaces triggers, refuses a destination change and a bad trigger', async () => {
    const created = await create(generic({ triggers: ['run:created'] }));
    const id = created.body.data.id as string;
    const patched = await call('PATCH', `/notification-configurations/${id}`, {
      data: { type: 'notification-configurations', attributes: { name: 'renamed', triggers: ['run:completed', 'run:errored'] } },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data.attributes).toMatchObject({ name: 'renamed', triggers: ['run:completed', 'run:errored'], url: receiver.url });
    const change = await call('PATCH', `/notification-configurations/${id}`, {
      data: { type: 'notification-configurations', attributes: { 'destination-type': 'slack' } },
    });
    expect(change.status).toBe(422);
    expect(change.body.errors[0].source.pointer).toBe('/data/attributes/destination-type');
    const bad = await call('PATCH', `/notification-configurations/${id}`, {
      data: { type: 'notification-configurations', attributes: { triggers: ['fly you fools!'] } },
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].source.pointer).toBe('/data/attributes/triggers/0');
    const empty = await call('PATCH', `/notification-configurations/${id}`, { data: { type: 'notification-configurations' } });
    expect(empty.status).toBe(200);
    expect(empty.body.data.attributes.name).toBe('renamed');
    expect(
      (await call('PATCH', '/notification-configurations/nonexisting', { data: { type: 'notification-configurations' } })).status,
    ).toBe(404);
    await call('DELETE', `/notification-configurations/${id}`);
  });

  it('allows twenty configurations per workspace', async () => {
    const other = (await workspaceWithLevels(world, 'crowded')).id;
    for (let index = 0; index < 20; index++) {
      expect((await create(generic({ name: `n${index}` }), {}, `/workspaces/${other}`)).status).toBe(201);
    }
    const twentyFirst = await create(generic({ name: 'n20' }), {}, `/workspaces/${other}`);
    expect(twentyFirst.status).toBe(422);
    const listed = await call('GET', `/workspaces/${other}/notification-configurations`);
    expect(listed.body.data).toHaveLength(20);
  });

  it('needs workspace admin: lower levels and other organizations meet 404', async () => {
    const asAdmin = await call('POST', `/workspaces/${ws}/notification-configurations`, createBody(generic()), world.principals.wsadmin);
    expect(asAdmin.status).toBe(201);
    for (const role of ['wswrite', 'wsread', 'member', 'outsider'] as const) {
      const token = world.principals[role];
      expect((await call('POST', `/workspaces/${ws}/notification-configurations`, createBody(generic()), token)).status, role).toBe(404);
      expect((await call('GET', `/workspaces/${ws}/notification-configurations`, undefined, token)).status, role).toBe(404);
      expect((await call('GET', `/notification-configurations/${asAdmin.body.data.id}`, undefined, token)).status, role).toBe(404);
    }
    expect((await call('GET', `/notification-configurations/${asAdmin.body.data.id}`, undefined, world.orgToken)).status).toBe(200);
    await call('DELETE', `/notification-configurations/${asAdmin.body.data.id}`);
  });

  it('team configurations take change_request:created only and need Manage Teams', async () => {
    const team = world.teams.plain as string;
    const on = `/teams/${team}`;
    const created = await create(generic({ triggers: ['change_request:created'] }), { subscribable: { type: 'teams', id: team } }, on);
    expect(created.status).toBe(201);
    expect(created.body.data.relationships.subscribable.data).toEqual({ type: 'teams', id: team });
    const wrong = await create(generic({ triggers: ['run:created'] }), {}, on);
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors[0].source.pointer).toBe('/data/attributes/triggers/0');
    const listed = await call('GET', `${on}/notification-configurations`);
    expect(listed.body.data).toEqual([created.body.data]);
    expect((await call('GET', `${on}/notification-configurations`, undefined, world.principals.member)).status).toBe(404);
    expect((await call('GET', '/teams/team-nonexisting/notification-configurations')).status).toBe(404);
  });

  it('project configurations take the workspace triggers', async () => {
    const project = await call('POST', `/organizations/${ORG}/projects`, { data: { type: 'projects', attributes: { name: 'alerts' } } });
    expect(project.status).toBe(201);
    const created = await create(generic({ triggers: ['run:errored'] }), {}, `/projects/${project.body.data.id}`);
    expect(created.status).toBe(201);
    expect(created.body.data.relationships.subscribable.data).toEqual({ type: 'projects', id: project.body.data.id });
  });

  it('verifies an email configuration on request by mailing its recipients through the outbox', async () => {
    const created = await create({ name: 'mail', 'destination-type': 'email', enabled: false, 'email-addresses': ['ops@acme.test'] });
    const verified = await call('POST', `/notification-configurations/${created.body.data.id}/actions/verify`);
    expect(verified.status).toBe(200);
    const { messages } = (await control(world.server, 'GET', '/outbox')).body;
    expect(messages).toContainEqual(
      expect.objectContaining({ kind: 'mail', 'delivered-via': 'outbox', to: 'ops@acme.test', subject: 'Verification of mail' }),
    );
  });
});
