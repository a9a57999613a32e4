import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { LATEST_RELEASE } from '../../../src/platform/tool-versions/releases.js';
import { ORG, OTHER_ORG, startWorld, type World } from './world.js';

const create = (world: World, attributes: Record<string, unknown>, extra: Record<string, unknown> = {}, token?: string) =>
  platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
    token,
    body: { data: { type: 'workspaces', attributes, ...extra } },
  });

const patch = (world: World, id: string, attributes: Record<string, unknown>) =>
  platform(world.server, 'PATCH', `/workspaces/${id}`, { body: { data: { type: 'workspaces', attributes } } });

/** 422 with a pointer at the attribute at fault. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
function expectInvalid(response: { status: number; body: any }, pointer: string) {
  expect(response.status).toBe(422);
  expect(response.body.errors[0].source.pointer).toBe(pointer);
}

describe('workspaces', () => {
  let world: World;
  let poolId: string;
  beforeAll(async () => {
    world = await startWorld();
    const pool = await platform(world.server, 'POST', `/organizations/${ORG}/agent-pools`, {
      body: { data: { type: 'agent-pools', attributes: { name: 'pool-1' } } },
    });
    poolId = pool.body.data.id;
  });
  afterAll(() => world.close());

  describe('create', () => {
    it('applies every default of the spec table', async () => {
      const { status, body } = await create(world, { name: 'defaults' });
      expect(status).toBe(201);
      expect(body.data.id).toMatch(/^ws-/);
      expect(body.data.attributes).toMatchObject({
        name: 'defaults',
        description: null,
        'execution-mode': 'remote',
        operations: true,
        'auto-apply': false,
        'allow-destroy-plan': true,
        'file-triggers-enabled': true,
        // The administrator setting default-remote-state-access (true) decides when omitted.
        'global-remote-state': true,
        'queue-all-runs': false,
        'speculative-enabled': true,
        'structured-run-output-enabled': true,
        'tool-version': LATEST_RELEASE,
        'trigger-prefixes': [],
        'trigger-patterns': [],
        'working-directory': null,
        'vcs-repo': null,
        'vcs-repo-identifier': null,
        source: 'svc-api',
        locked: false,
        'resource-count': 0,
        'apply-duration-average': null,
        'plan-duration-average': null,
        'policy-check-failures': null,
        'run-failures': null,
        'workspace-kpis-runs-count': null,
        actions: { 'is-destroyable': true },
        'tag-names': [],
        'setting-overwrites': { 'execution-mode': false, 'agent-pool': false },
      });
      const attributes = body.data.attributes;
      expect(attributes['created-at']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      expect(attributes['updated-at']).toBe(attributes['created-at']);
      expect(attributes['latest-change-at']).toBe(attributes['created-at']);
      expect(Object.keys(attributes.permissions)).toHaveLength(17);
      expect(Object.values(attributes.permissions).every((value) => value === true)).toBe(true);
      expect(body.data.links).toEqual({
        self: `/api/v2/organizations/${ORG}/workspaces/defaults`,
        'self-html': `/app/${ORG}/workspaces/defaults`,
      });
      expect(body.data.relationships).toMatchObject({
        organization: { data: { id: ORG, type: 'organizations' } },
        'agent-pool': { data: null },
        'current-run': { data: null },
        'latest-run': { data: null },
        'current-configuration-version': { data: null },
        'current-state-version': { data: null },
        outputs: { data: [] },
        readme: { data: null },
        'remote-state-consumers': { links: { related: `/api/v2/workspaces/${body.data.id}/relationships/remote-state-consumers` } },
        'locked-by': { data: null },
        project: { data: { id: expect.stringMatching(/^prj-/), type: 'projects' } },
      });
      expect(body.data.relationships['ssh-key']).toBeUndefined();
    });

    it('echoes every option given', async () => {
      const attributes = {
        name: 'full-options',
        description: 'all of them',
        'allow-destroy-plan': false,
        'auto-apply': true,
        'auto-destroy-at': '2025-01-01T00:00:00Z',
        'execution-mode': 'local',
        'file-triggers-enabled': false,
        'global-remote-state': false,
        'queue-all-runs': true,
        'source-name': 'my-tool',
        'source-url': 'https://tool.example/ws',
        'speculative-enabled': false,
        'structured-run-output-enabled': false,
        'tool-version': '1.5.7',
        'trigger-prefixes': ['modules/'],
        'trigger-patterns': ['**/*.tf'],
        'working-directory': 'infra',
        'vcs-repo': {
          'oauth-token-id': 'ot-abc',
          identifier: 'acme/infra',
          branch: 'main',
          'ingress-submodules': true,
          'tags-regex': '^v\\d+$',
        },
      };
      const { status, body } = await create(world, attributes);
      expect(status).toBe(201);
      const { 'vcs-repo': _vcs, 'auto-destroy-at': _at, ...plain } = attributes;
      expect(body.data.attributes).toMatchObject({
        ...plain,
        operations: false,
        'auto-destroy-at': '2025-01-01T00:00:00.000Z',
        'vcs-repo-identifier': 'acme/infra',
      });
      expect(body.data.attributes['vcs-repo']).toMatchObject({
        branch: 'main',
        identifier: 'acme/infra',
        'display-identifier': 'acme/infra',
        'ingress-submodules': true,
        'oauth-token-id': 'ot-abc',
        'repository-http-url': 'https://github.com/acme/infra',
        'service-provider': 'github',
        'tags-regex': '^v\\d+$',
      });
      expect(body.data.attributes['vcs-repo']['webhook-url']).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks\/vcs\/[0-9a-f-]{36}$/);
      expect(body.data.attributes['setting-overwrites']).toEqual({ 'execution-mode': true, 'agent-pool': true });
    });

    it('takes tags from relationships.tags, in order, by name or id', async () => {
      const first = await create(
        world,
        { name: 'tagged-first' },
        {
          relationships: {
            tags: {
              data: [
                { type: 'tags', attributes: { name: 'tag1' } },
                { type: 'tags', attributes: { name: 'tag2' } },
              ],
            },
          },
        },
      );
      expect(first.status).toBe(201);
      expect(first.body.data.attributes['tag-names']).toEqual(['tag1', 'tag2']);
      const tag2 = first.body.data.relationships.tags.data[1];
      const second = await create(
        world,
        { name: 'tagged-second' },
        {
          relationships: {
            tags: {
              data: [
                { type: 'tags', id: tag2.id },
                { type: 'tags', attributes: { name: 'tag0' } },
              ],
            },
          },
        },
      );
      expect(second.body.data.attributes['tag-names']).toEqual(['tag2', 'tag0']);
      expect(second.body.data.relationships.tags.data[0]).toEqual(tag2);
    });

    it('refuses a name that breaks the rules or is taken (422 naming the attribute)', async () => {
      expectInvalid(await create(world, {}), '/data/attributes/name');
      expectInvalid(await create(world, { name: 'has space' }), '/data/attributes/name');
      expectInvalid(await create(world, { name: 'a/b' }), '/data/attributes/name');
      expectInvalid(await create(world, { name: 'x'.repeat(91) }), '/data/attributes/name');
      expect((await create(world, { name: 'taken' })).status).toBe(201);
      const again = await create(world, { name: 'taken' });
      expectInvalid(again, '/data/attributes/name');
      expect(again.body.errors[0].detail).toBe('name has already been taken');
    });

    it('allows the same name in another organization', async () => {
      const other = await platform(world.server, 'POST', `/organizations/${OTHER_ORG}/workspaces`, {
        body: { data: { type: 'workspaces', attributes: { name: 'taken' } } },
      });
      expect(other.status).toBe(201);
    });

    it('enforces the execution-mode, operations and agent-pool-id rules', async () => {
      expectInvalid(await create(world, { name: 'both', 'execution-mode': 'remote', operations: true }), '/data/attributes/operations');
      expectInvalid(await create(world, { name: 'agent-no-pool', 'execution-mode': 'agent' }), '/data/attributes/agent-pool-id');
      expectInvalid(
        await create(world, { name: 'remote-pool', 'execution-mode': 'remote', 'agent-pool-id': poolId }),
        '/data/attributes/agent-pool-id',
      );
      expectInvalid(
        await create(world, { name: 'local-pool', 'execution-mode': 'local', 'agent-pool-id': poolId }),
        '/data/attributes/agent-pool-id',
      );
      expectInvalid(await create(world, { name: 'ops-pool', operations: true, 'agent-pool-id': poolId }), '/data/attributes/agent-pool-id');
      expectInvalid(await create(world, { name: 'bad-mode', 'execution-mode': 'cloud' }), '/data/attributes/execution-mode');
      const unknown = await create(world, { name: 'unknown-pool', 'execution-mode': 'agent', 'agent-pool-id': 'apool-nope' });
      expectInvalid(unknown, '/data/attributes/agent-pool-id');
      expect(unknown.body.errors[0].detail).toContain('The provided agent pool does not exist');

      const agent = await create(world, { name: 'on-agents', 'execution-mode': 'agent', 'agent-pool-id': poolId });
      expect(agent.status).toBe(201);
      expect(agent.body.data.attributes).toMatchObject({ 'execution-mode': 'agent', operations: true });
      expect(agent.body.data.relationships['agent-pool']).toEqual({ data: { id: poolId, type: 'agent-pools' } });
      const local = await create(world, { name: 'state-only', operations: false });
      expect(local.body.data.attributes).toMatchObject({ 'execution-mode': 'local', operations: false });
    });

    it('refuses an agent pool of another organization', async () => {
      const pool = await platform(world.server, 'POST', `/organizations/${OTHER_ORG}/agent-pools`, {
        body: { data: { type: 'agent-pools', attributes: { name: 'theirs' } } },
      });
      expectInvalid(
        await create(world, { name: 'foreign-pool', 'execution-mode': 'agent', 'agent-pool-id': pool.body.data.id }),
        '/data/attributes/agent-pool-id',
      );
    });

    it('requires oauth-token-id and identifier in a new vcs-repo', async () => {
      expectInvalid(await create(world, { name: 'vcs-1', 'vcs-repo': { identifier: 'a/b' } }), '/data/attributes/vcs-repo/oauth-token-id');
      expectInvalid(
        await create(world, { name: 'vcs-2', 'vcs-repo': { 'oauth-token-id': 'ot-1' } }),
        '/data/attributes/vcs-repo/identifier',
      );
      expectInvalid(
        await create(world, { name: 'vcs-3', 'vcs-repo': { 'oauth-token-id': 'ot-1', identifier: 'no-slash' } }),
        '/data/attributes/vcs-repo/identifier',
      );
      expectInvalid(
        await create(world, { name: 'vcs-4', 'vcs-repo': { 'oauth-token-id': 'ot-1', identifier: 'a/b', 'tags-regex': '(' } }),
        '/data/attributes/vcs-repo/tags-regex',
      );
      const azure = await create(world, { name: 'vcs-5', 'vcs-repo': { 'oauth-token-id': 'ot-1', identifier: 'org/project/_git/repo' } });
      expect(azure.status).toBe(201);
      expect(azure.body.data.attributes['vcs-repo']).toMatchObject({
        branch: '',
        'ingress-submodules': false,
        'tags-regex': null,
        'service-provider': 'ado_services',
      });
    });

    it('accepts exact tool versions and constraints, and refuses unknown or unsatisfiable ones', async () => {
      expect((await create(world, { name: 'tv-exact', 'tool-version': '1.3.10' })).body.data.attributes['tool-version']).toBe('1.3.10');
      expect((await create(world, { name: 'tv-range', 'tool-version': '~> 1.4.0' })).body.data.attributes['tool-version']).toBe('~> 1.4.0');
      expect((await create(world, { name: 'tv-latest', 'tool-version': 'latest' })).status).toBe(201);
      expectInvalid(await create(world, { name: 'tv-bad', 'tool-version': 'nonexisting' }), '/data/attributes/tool-version');
      expectInvalid(await create(world, { name: 'tv-unknown', 'tool-version': '9.9.9' }), '/data/attributes/tool-version');
      expectInvalid(await create(world, { name: 'tv-never', 'tool-version': '>= 1.2, < 1.1' }), '/data/attributes/tool-version');
    });

    it('answers 422 for bodies of the wrong shape, never 5xx', async () => {
      const responses = await Promise.all([
        platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, { body: '{"data":' }),
        platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
          body: { data: { type: 'teams', attributes: { name: 'x' } } },
        }),
        platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, { body: { data: [] } }),
        create(world, { name: 'wrong-types', 'auto-apply': 'true' }),
        create(world, { name: 'wrong-types', 'trigger-prefixes': 'x' }),
        create(world, { name: 'wrong-types', 'vcs-repo': 'x' }),
        create(world, { name: 'wrong-types', 'auto-destroy-at': 'soon' }),
        create(world, { name: 12 }),
        create(world, { name: 'wrong-tags' }, { relationships: { tags: { data: [{ type: 'tags' }] } } }),
      ]);
      for (const response of responses) expect(response.status).toBe(422);
    });

    it('answers 404 for an unknown organization or one the caller is not in', async () => {
      expect(
        (
          await platform(world.server, 'POST', '/organizations/nope/workspaces', {
            body: { data: { type: 'workspaces', attributes: { name: 'x' } } },
          })
        ).status,
      ).toBe(404);
      expect((await create(world, { name: 'outsider' }, {}, world.principals.outsider)).status).toBe(404);
    });
  });

  describe('show, update, rename', () => {
    it('shows by id and by name identically, and 404s for unknown ones', async () => {
      const { body } = await create(world, { name: 'shown' });
      const byId = await platform(world.server, 'GET', `/workspaces/${body.data.id}`);
      const byName = await platform(world.server, 'GET', `/organizations/${ORG}/workspaces/shown`);
      expect(byId.body).toEqual(body);
      expect(byName.body).toEqual(body);
      expect((await platform(world.server, 'GET', '/workspaces/ws-missing')).status).toBe(404);
      expect((await platform(world.server, 'GET', `/organizations/${ORG}/workspaces/missing`)).status).toBe(404);
      expect((await platform(world.server, 'GET', '/organizations/nope/workspaces/shown')).status).toBe(404);
    });

    it('updates by id and by name alike; absent attributes keep their values', async () => {
      const { body } = await create(world, { name: 'updated', description: 'before', 'auto-apply': true });
      world.server.app.runtime.clock.advance(1000);
      const byId = await patch(world, body.data.id, { description: 'after' });
      expect(byId.status).toBe(200);
      expect(byId.body.data.attributes).toMatchObject({ description: 'after', 'auto-apply': true });
      expect(byId.body.data.attributes['updated-at']).not.toBe(body.data.attributes['updated-at']);
      expect(byId.body.data.attributes['latest-change-at']).toBe(byId.body.data.attributes['updated-at']);
      const byName = await platform(world.server, 'PATCH', `/organizations/${ORG}/workspaces/updated`, {
        body: { data: { type: 'workspaces', attributes: { 'auto-apply': false } } },
      });
      expect(byName.status).toBe(200);
      expect(byName.body.data.attributes).toMatchObject({ description: 'after', 'auto-apply': false });
    });

    it('renames, which moves the workspace to a new address', async () => {
      const { body } = await create(world, { name: 'old-name' });
      const renamed = await patch(world, body.data.id, { name: 'new-name' });
      expect(renamed.body.data.links.self).toBe(`/api/v2/organizations/${ORG}/workspaces/new-name`);
      expect((await platform(world.server, 'GET', `/organizations/${ORG}/workspaces/old-name`)).status).toBe(404);
      expect((await platform(world.server, 'GET', `/organizations/${ORG}/workspaces/new-name`)).body.data.id).toBe(body.data.id);
      expectInvalid(await patch(world, body.data.id, { name: 'taken' }), '/data/attributes/name');
    });

    it('keeps operations in step with execution-mode, and applies the agent pool rules on update', async () => {
      const { body } = await create(world, { name: 'modes' });
      const id = body.data.id;
      expect((await patch(world, id, { operations: false })).body.data.attributes).toMatchObject({
        'execution-mode': 'local',
        operations: false,
      });
      expect((await patch(world, id, { 'execution-mode': 'remote' })).body.data.attributes).toMatchObject({
        'execution-mode': 'remote',
        operations: true,
      });
      expectInvalid(await patch(world, id, { 'execution-mode': 'agent' }), '/data/attributes/agent-pool-id');
      expectInvalid(await patch(world, id, { 'agent-pool-id': poolId }), '/data/attributes/agent-pool-id');
      expectInvalid(await patch(world, id, { 'execution-mode': 'local', operations: false }), '/data/attributes/operations');
      const agent = await patch(world, id, { 'execution-mode': 'agent', 'agent-pool-id': poolId });
      expect(agent.body.data.relationships['agent-pool'].data.id).toBe(poolId);
      // Leaving agent mode drops the pool.
      const remote = await patch(world, id, { 'execution-mode': 'remote' });
      expect(remote.body.data.relationships['agent-pool'].data).toBeNull();
    });

    it('patches vcs-repo key by key and removes it with null', async () => {
      const { body } = await create(world, {
        name: 'vcs-patch',
        'vcs-repo': { 'oauth-token-id': 'ot-1', identifier: 'a/b', branch: 'main' },
      });
      const id = body.data.id;
      const webhook = body.data.attributes['vcs-repo']['webhook-url'];
      const patched = await patch(world, id, { 'vcs-repo': { branch: 'dev' } });
      expect(patched.body.data.attributes['vcs-repo']).toMatchObject({
        'oauth-token-id': 'ot-1',
        identifier: 'a/b',
        branch: 'dev',
        'webhook-url': webhook,
      });
      const removed = await patch(world, id, { 'vcs-repo': null });
      expect(removed.body.data.attributes['vcs-repo']).toBeNull();
      expect(removed.body.data.attributes['vcs-repo-identifier']).toBeNull();
      expectInvalid(await patch(world, id, { 'vcs-repo': { branch: 'x' } }), '/data/attributes/vcs-repo/oauth-token-id');
    });

    it('ignores source-name and source-url on update, which the spec does not list', async () => {
      const { body } = await create(world, { name: 'sourced', 'source-name': 'one' });
      expect((await patch(world, body.data.id, { 'source-name': 'two' })).body.data.attributes['source-name']).toBe('one');
    });

    it('validates tool-version on update', async () => {
      const { body } = await create(world, { name: 'tv-update' });
      expectInvalid(await patch(world, body.data.id, { 'tool-version': '0.0.1' }), '/data/attributes/tool-version');
      expect((await patch(world, body.data.id, { 'tool-version': '>= 1.0, < 1.2' })).body.data.attributes['tool-version']).toBe(
        '>= 1.0, < 1.2',
      );
    });

    it('answers 404 for an unknown workspace on update', async () => {
      expect((await patch(world, 'ws-missing', { description: 'x' })).status).toBe(404);
    });
  });

  describe('include', () => {
    it('includes the organization and the lock holder; targets understudy does not model come back empty', async () => {
      const { body } = await create(world, { name: 'included' });
      await platform(world.server, 'POST', `/workspaces/${body.data.id}/actions/lock`);
      const shown = await platform(
        world.server,
        'GET',
        `/workspaces/${body.data.id}?include=organization,locked_by,current_run,current_run.plan,outputs,readme,` +
          'current_configuration_version.ingress_attributes',
      );
      expect(shown.status).toBe(200);
      const types = shown.body.included.map((item: { type: string }) => item.type).sort();
      expect(types).toEqual(['organizations', 'users']);
      expect(shown.body.data.relationships['current-run']).toEqual({ data: null });
      expect(shown.body.data.relationships.outputs.data).toEqual([]);
    });

    it('refuses include values outside the list with 400', async () => {
      const { body } = await create(world, { name: 'bad-include' });
      const response = await platform(world.server, 'GET', `/workspaces/${body.data.id}?include=runs`);
      expect(response.status).toBe(400);
      expect(response.body.errors[0].detail).toContain('include parameter');
    });
  });

  describe('lock, unlock, force-unlock', () => {
    it('locks once, records the holder, and answers 409 as the real client expects', async () => {
      const { body } = await create(world, { name: 'lockable' });
      const id = body.data.id;
      const locked = await platform(world.server, 'POST', `/workspaces/${id}/actions/lock`, {
        body: { data: { type: '', attributes: { reason: 'testing' } } },
      });
      expect(locked.status).toBe(200);
      expect(locked.body.data.attributes.locked).toBe(true);
      expect(locked.body.data.relationships['locked-by'].data).toMatchObject({ type: 'users' });
      expect((await platform(world.server, 'POST', `/workspaces/${id}/actions/lock`)).status).toBe(409);
      const unlocked = await platform(world.server, 'POST', `/workspaces/${id}/actions/unlock`);
      expect(unlocked.status).toBe(200);
      expect(unlocked.body.data.attributes.locked).toBe(false);
      expect(unlocked.body.data.relationships['locked-by']).toEqual({ data: null });
      const again = await platform(world.server, 'POST', `/workspaces/${id}/actions/unlock`);
      expect(again.status).toBe(409);
      expect(again.body.errors[0].detail).not.toContain('is locked by');
    });

    it('takes the plain {"reason": …} body the API documents, no body, and refuses a malformed one', async () => {
      const { body } = await create(world, { name: 'plain-lock' });
      const id = body.data.id;
      const plain = await platform(world.server, 'POST', `/workspaces/${id}/actions/lock`, { body: { reason: 'manual' } });
      expect(plain.status).toBe(200);
      expect(plain.body.data.attributes.locked).toBe(true);
      expect((await platform(world.server, 'POST', `/workspaces/${id}/actions/unlock`)).status).toBe(200);
      for (const bad of [{ reason: 5 }, { data: { type: 'teams' } }, { reason: 'x', extra: true }]) {
        const refused = await platform(world.server, 'POST', `/workspaces/${id}/actions/lock`, { body: bad });
        expect(refused.status, JSON.stringify(bad)).toBe(422);
      }
      expect((await platform(world.server, 'GET', `/workspaces/${id}`)).body.data.attributes.locked).toBe(false);
      expect((await platform(world.server, 'POST', `/workspaces/${id}/actions/lock`)).status).toBe(200);
    });

    it('lets only the holder unlock; others get a 409 naming the holder, admins can force-unlock', async () => {
      const { body } = await create(world, { name: 'held' });
      const id = body.data.id;
      await platform(world.server, 'POST', `/workspaces/${id}/actions/lock`, { token: world.principals.owner });
      const refused = await platform(world.server, 'POST', `/workspaces/${id}/actions/unlock`);
      expect(refused.status).toBe(409);
      expect(refused.body.errors[0].detail).toContain('is locked by User owner');
      const forced = await platform(world.server, 'POST', `/workspaces/${id}/actions/force-unlock`);
      expect(forced.status).toBe(200);
      expect(forced.body.data.attributes.locked).toBe(false);
      expect((await platform(world.server, 'POST', `/workspaces/${id}/actions/force-unlock`)).status).toBe(409);
    });

    it('records a team token as the holder', async () => {
      const { body } = await create(world, { name: 'team-held' });
      const token = await platform(world.server, 'POST', `/teams/${world.teams.managers}/authentication-token`, {
        body: { data: { type: 'authentication-tokens' } },
      });
      const locked = await platform(world.server, 'POST', `/workspaces/${body.data.id}/actions/lock`, {
        token: token.body.data.attributes.token,
      });
      expect(locked.body.data.relationships['locked-by'].data).toEqual({ id: world.teams.managers, type: 'teams' });
      const refused = await platform(world.server, 'POST', `/workspaces/${body.data.id}/actions/unlock`);
      expect(refused.body.errors[0].detail).toContain('is locked by Team managers');
      const included = await platform(world.server, 'GET', `/workspaces/${body.data.id}?include=locked_by`);
      expect(included.body.included[0]).toMatchObject({ id: world.teams.managers, type: 'teams', attributes: { name: 'managers' } });
    });

    it("records an organization token as the organization's service account, a user", async () => {
      const { body } = await create(world, { name: 'org-held' });
      const locked = await platform(world.server, 'POST', `/workspaces/${body.data.id}/actions/lock`, { token: world.principals.orgtoken });
      expect(locked.status).toBe(200);
      const holder = locked.body.data.relationships['locked-by'].data;
      expect(holder).toMatchObject({ type: 'users' });
      const account = await platform(world.server, 'GET', '/account/details', { token: world.principals.orgtoken });
      expect(holder.id).toBe(account.body.data.id);
      const refused = await platform(world.server, 'POST', `/workspaces/${body.data.id}/actions/unlock`);
      expect(refused.body.errors[0].detail).toContain(`is locked by User ${account.body.data.attributes.username}`);
      const included = await platform(world.server, 'GET', `/workspaces/${body.data.id}?include=locked_by`);
      expect(included.body.included[0]).toMatchObject({
        id: holder.id,
        type: 'users',
        attributes: { username: account.body.data.attributes.username },
      });
      expect(
        (await platform(world.server, 'POST', `/workspaces/${body.data.id}/actions/unlock`, { token: world.principals.orgtoken })).body.data
          .attributes.locked,
      ).toBe(false);
    });
  });

  describe('delete and safe-delete', () => {
    it('deletes by id and by name', async () => {
      const first = await create(world, { name: 'doomed-1' });
      await create(world, { name: 'doomed-2' });
      const byId = await platform(world.server, 'DELETE', `/workspaces/${first.body.data.id}`);
      expect(byId.status).toBe(204);
      expect(byId.body).toBeUndefined();
      expect((await platform(world.server, 'GET', `/workspaces/${first.body.data.id}`)).status).toBe(404);
      expect((await platform(world.server, 'DELETE', `/organizations/${ORG}/workspaces/doomed-2`)).status).toBe(204);
      expect((await platform(world.server, 'DELETE', `/organizations/${ORG}/workspaces/doomed-2`)).status).toBe(404);
    });

    it('safe-deletes only an unlocked workspace without resources (409 "locked" otherwise)', async () => {
      const { body } = await create(world, { name: 'careful' });
      await platform(world.server, 'POST', `/workspaces/${body.data.id}/actions/lock`);
      const refused = await platform(world.server, 'POST', `/workspaces/${body.data.id}/actions/safe-delete`);
      expect(refused.status).toBe(409);
      expect(refused.body.errors[0].detail).toContain('locked');
      await platform(world.server, 'POST', `/workspaces/${body.data.id}/actions/unlock`);
      expect((await platform(world.server, 'POST', `/workspaces/${body.data.id}/actions/safe-delete`)).status).toBe(204);
      await create(world, { name: 'careful-2' });
      expect((await platform(world.server, 'POST', `/organizations/${ORG}/workspaces/careful-2/actions/safe-delete`)).status).toBe(204);
      expect((await platform(world.server, 'POST', `/organizations/${ORG}/workspaces/careful-2/actions/safe-delete`)).status).toBe(404);
    });

    it('refuses safe-delete while the workspace manages resources', async () => {
      const { body } = await create(world, { name: 'has-resources' });
      world.server.app.runtime.store.sqlite.prepare('UPDATE workspaces SET resource_count = 3 WHERE id = ?').run(body.data.id);
      const refused = await platform(world.server, 'POST', `/workspaces/${body.data.id}/actions/safe-delete`);
      expect(refused.status).toBe(409);
      expect(refused.body.errors[0].detail).not.toContain('locked');
    });
  });

  describe('SSH key relationship', () => {
    it('assigns a key by attributes.id and unassigns with null', async () => {
      const key = await platform(world.server, 'POST', `/organizations/${ORG}/ssh-keys`, {
        body: { data: { type: 'ssh-keys', attributes: { name: 'deploy', value: 'PRIVATE KEY' } } },
      });
      const { body } = await create(world, { name: 'keyed' });
      const assign = await platform(world.server, 'PATCH', `/workspaces/${body.data.id}/relationships/ssh-key`, {
        body: { data: { type: 'workspaces', attributes: { id: key.body.data.id } } },
      });
      expect(assign.status).toBe(200);
      expect(assign.body.data.relationships['ssh-key']).toEqual({
        data: { id: key.body.data.id, type: 'ssh-keys' },
        links: { related: `/api/v2/ssh-keys/${key.body.data.id}` },
      });
      const unassign = await platform(world.server, 'PATCH', `/workspaces/${body.data.id}/relationships/ssh-key`, {
        body: { data: { type: 'workspaces', attributes: { id: null } } },
      });
      expect(unassign.status).toBe(200);
      expect(unassign.body.data.relationships['ssh-key']).toBeUndefined();
    });

    it('refuses unknown keys, keys of another organization and malformed bodies', async () => {
      const { body } = await create(world, { name: 'keyless' });
      const other = await platform(world.server, 'POST', `/organizations/${OTHER_ORG}/ssh-keys`, {
        body: { data: { type: 'ssh-keys', attributes: { name: 'theirs', value: 'K' } } },
      });
      const path = `/workspaces/${body.data.id}/relationships/ssh-key`;
      expectInvalid(
        await platform(world.server, 'PATCH', path, { body: { data: { type: 'workspaces', attributes: { id: 'sshkey-nope' } } } }),
        '/data/attributes/id',
      );
      expectInvalid(
        await platform(world.server, 'PATCH', path, { body: { data: { type: 'workspaces', attributes: { id: other.body.data.id } } } }),
        '/data/attributes/id',
      );
      expectInvalid(
        await platform(world.server, 'PATCH', path, { body: { data: { type: 'workspaces', attributes: {} } } }),
        '/data/attributes/id',
      );
      expect(
        (
          await platform(world.server, 'PATCH', '/workspaces/ws-missing/relationships/ssh-key', {
            body: { data: { type: 'workspaces', attributes: { id: null } } },
          })
        ).status,
      ).toBe(404);
    });

    it('drops the assignment when the key is deleted', async () => {
      const key = await platform(world.server, 'POST', `/organizations/${ORG}/ssh-keys`, {
        body: { data: { type: 'ssh-keys', attributes: { name: 'short-lived', value: 'K' } } },
      });
      const { body } = await create(world, { name: 'loses-key' });
      await platform(world.server, 'PATCH', `/workspaces/${body.data.id}/relationships/ssh-key`, {
        body: { data: { type: 'workspaces', attributes: { id: key.body.data.id } } },
      });
      await platform(world.server, 'DELETE', `/ssh-keys/${key.body.data.id}`);
      expect((await platform(world.server, 'GET', `/workspaces/${body.data.id}`)).body.data.relationships['ssh-key']).toBeUndefined();
    });
  });
});
