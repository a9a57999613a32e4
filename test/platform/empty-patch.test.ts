import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../helpers/app.js';

/**
 * A PATCH that sets nothing (no attributes, or only ones the emulator does not know) must leave
 * the resource as it is, never end in a 500. The routes come from the server itself, so a new
 * PATCH route is covered as soon as it exists (and fails here until it has ids to work on).
 */
const ORG = 'patchco';
const MODULE_ROUTE = '/api/v2/organizations/:org/registry-modules/:registry/:namespace/:name/:provider';

type Document = { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: BodySchema }> } }>> };
type BodySchema = { properties?: { data?: { type?: string; properties?: { type?: { anyOf?: { enum?: string[]; const?: string }[] } } } } };

/** The empty bodies to send, built from the route's own schema (its resource type, or a data array). */
function emptyBodies(schema: BodySchema | undefined): unknown[] {
  const data = schema?.properties?.data;
  if (data?.type === 'array') return [{ data: [] }];
  const member = data?.properties?.type?.anyOf?.[0];
  const type = member?.enum?.[0] ?? member?.const ?? '';
  return [{ data: { type, attributes: {} } }, { data: { type, attributes: { 'not-an-attribute': 1 } } }, { data: { type } }];
}

const PROVIDER_ROUTE = '/api/v2/organizations/:org/registry-providers/:registry/:namespace/:name';

describe('a PATCH that sets nothing', () => {
  let server: TestServer;
  let document: Document;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    server = await startServer();
    document = (await (await fetch(`${server.baseUrl}/_emulator/openapi.json`)).json()) as Document;
    const create = async (path: string, body: unknown) => {
      const response = await platform(server, 'POST', path, { body });
      expect(response.status, `${path}: ${JSON.stringify(response.body)}`).toBe(201);
      return response.body.data.id as string;
    };
    await create('/organizations', { data: { type: 'organizations', attributes: { name: ORG, email: 'owners@patchco.test' } } });
    ids.workspace = await create(`/organizations/${ORG}/workspaces`, { data: { type: 'workspaces', attributes: { name: 'target' } } });
    ids.sshKey = await create(`/organizations/${ORG}/ssh-keys`, {
      data: { type: 'ssh-keys', attributes: { name: 'key', value: 'not-a-real-key' } },
    });
    ids.team = await create(`/organizations/${ORG}/teams`, { data: { type: 'teams', attributes: { name: 'patchers' } } });
    ids.pool = await create(`/organizations/${ORG}/agent-pools`, { data: { type: 'agent-pools', attributes: { name: 'pool' } } });
    ids.task = await create(`/organizations/${ORG}/tasks`, {
      data: { type: 'tasks', attributes: { name: 'check', url: 'http://127.0.0.1:9/hook', category: 'task', description: 'checks' } },
    });
    const relationship = (type: string, id: string) => ({ data: { type, id } });
    const moduleId = async () =>
      (await platform(server, 'GET', `/organizations/${ORG}/registry-modules/private/${ORG}/patched/aws`)).body.data.id as string;
    ids.grant = await create('/team-workspaces', {
      data: {
        type: 'team-workspaces',
        attributes: { access: 'read' },
        relationships: { team: relationship('teams', ids.team), workspace: relationship('workspaces', ids.workspace) },
      },
    });
    ids.attachment = await create(`/workspaces/${ids.workspace}/tasks`, {
      data: {
        type: 'workspace-tasks',
        attributes: { 'enforcement-level': 'advisory' },
        relationships: { task: relationship('tasks', ids.task) },
      },
    });
    ids.project = await create(`/organizations/${ORG}/projects`, { data: { type: 'projects', attributes: { name: 'patched' } } });
    ids.teamProject = await create('/team-projects', {
      data: {
        type: 'team-projects',
        attributes: { access: 'read' },
        relationships: { team: relationship('teams', ids.team), project: relationship('projects', ids.project) },
      },
    });
    ids.variable = await create(`/workspaces/${ids.workspace}/vars`, {
      data: { type: 'vars', attributes: { key: 'k', value: 'v', category: 'env' } },
    });
    ids.varset = await create(`/organizations/${ORG}/varsets`, { data: { type: 'varsets', attributes: { name: 'patched-set' } } });
    ids.setVariable = await create(`/varsets/${ids.varset}/relationships/vars`, {
      data: { type: 'vars', attributes: { key: 'k', value: 'v', category: 'terraform' } },
    });
    await create(`/organizations/${ORG}/registry-modules`, {
      data: { type: 'registry-modules', attributes: { name: 'patched', provider: 'aws' } },
    });
    ids.noCode = await create(`/organizations/${ORG}/no-code-modules`, {
      data: { type: 'no-code-modules', relationships: { 'registry-module': relationship('registry-modules', await moduleId()) } },
    });
    ids.notification = await create(`/workspaces/${ids.workspace}/notification-configurations`, {
      data: {
        type: 'notification-configurations',
        attributes: { name: 'hook', 'destination-type': 'generic', url: 'http://127.0.0.1:9/hook', enabled: false },
      },
    });
    ids.policy = await create(`/organizations/${ORG}/policies`, {
      data: { type: 'policies', attributes: { name: 'patched-policy', kind: 'sentinel', 'enforcement-level': 'advisory' } },
    });
    ids.policySet = await create(`/organizations/${ORG}/policy-sets`, {
      data: { type: 'policy-sets', attributes: { name: 'patched-set' } },
    });
    ids.parameter = await create(`/policy-sets/${ids.policySet}/parameters`, {
      data: { type: 'vars', attributes: { key: 'patched', value: 'v', category: 'policy-set' } },
    });
    ids.oauthClient = await create(`/organizations/${ORG}/oauth-clients`, {
      data: { type: 'oauth-clients', attributes: { 'service-provider': 'github', 'http-url': 'https://github.com', name: 'patched' } },
    });
    ids.oauthToken = (await platform(server, 'GET', `/oauth-clients/${ids.oauthClient}`)).body.data.relationships[
      'oauth-tokens'
    ].data[0].id;
    ids.reservedKey = await create(`/organizations/${ORG}/reserved-tag-keys`, {
      data: { type: 'reserved-tag-keys', attributes: { key: 'patched' } },
    });
    await create(`/organizations/${ORG}/registry-providers`, {
      data: { type: 'registry-providers', attributes: { name: 'patched', namespace: ORG, 'registry-name': 'private' } },
    });
    ids.toolVersion = await create('/admin/terraform-versions', {
      data: { type: 'terraform-versions', attributes: { version: '1.0.4545', url: 'https://example.com/tf.zip', sha: 'a'.repeat(64) } },
    });
    for (const tool of ['opa', 'sentinel']) {
      ids[tool] = await create(`/admin/${tool}-versions`, {
        data: { type: `${tool}-versions`, attributes: { version: '9.0.4545', url: 'https://example.com/tool', sha: 'a'.repeat(64) } },
      });
    }
  });
  afterAll(() => server.close());

  /** The path of each PATCH route with real ids in place of its parameters. */
  const concrete = (url: string): string | undefined => {
    const values: Record<string, string | undefined> = {
      '/api/v2/account/update': '/account/update',
      '/api/v2/organizations/:name': `/organizations/${ORG}`,
      '/api/v2/workspaces/:id': `/workspaces/${ids.workspace}`,
      '/api/v2/organizations/:org/workspaces/:name': `/organizations/${ORG}/workspaces/target`,
      '/api/v2/workspaces/:id/relationships/ssh-key': `/workspaces/${ids.workspace}/relationships/ssh-key`,
      '/api/v2/workspaces/:id/relationships/remote-state-consumers': `/workspaces/${ids.workspace}/relationships/remote-state-consumers`,
      '/api/v2/ssh-keys/:id': `/ssh-keys/${ids.sshKey}`,
      '/api/v2/teams/:id': `/teams/${ids.team}`,
      '/api/v2/agent-pools/:id': `/agent-pools/${ids.pool}`,
      '/api/v2/tasks/:id': `/tasks/${ids.task}`,
      '/api/v2/team-workspaces/:id': `/team-workspaces/${ids.grant}`,
      '/api/v2/workspaces/:workspaceId/tasks/:id': `/workspaces/${ids.workspace}/tasks/${ids.attachment}`,
      '/api/v2/projects/:id': `/projects/${ids.project}`,
      '/api/v2/workspaces/:id/tag-bindings': `/workspaces/${ids.workspace}/tag-bindings`,
      '/api/v2/projects/:id/tag-bindings': `/projects/${ids.project}/tag-bindings`,
      // Rollback: the body names the version, so an empty one is a 422 about the body.
      '/api/v2/workspaces/:id/state-versions': `/workspaces/${ids.workspace}/state-versions`,
      '/api/v2/workspaces/:id/vars/:var': `/workspaces/${ids.workspace}/vars/${ids.variable}`,
      '/api/v2/vars/:id': `/vars/${ids.variable}`,
      '/api/v2/team-projects/:id': `/team-projects/${ids.teamProject}`,
      '/api/v2/varsets/:id': `/varsets/${ids.varset}`,
      '/api/v2/varsets/:id/relationships/vars/:var': `/varsets/${ids.varset}/relationships/vars/${ids.setVariable}`,
      '/api/v2/admin/terraform-versions/:id': `/admin/terraform-versions/${ids.toolVersion}`,
      '/api/v2/admin/opa-versions/:id': `/admin/opa-versions/${ids.opa}`,
      '/api/v2/admin/sentinel-versions/:id': `/admin/sentinel-versions/${ids.sentinel}`,
      '/api/v2/admin/organizations/:org': `/admin/organizations/${ORG}`,
      '/api/v2/admin/organizations/:org/relationships/module-consumers': `/admin/organizations/${ORG}/relationships/module-consumers`,
      [MODULE_ROUTE]: `/organizations/${ORG}/registry-modules/private/${ORG}/patched/aws`,
      '/api/v2/no-code-modules/:id': `/no-code-modules/${ids.noCode}`,
      '/api/v2/notification-configurations/:id': `/notification-configurations/${ids.notification}`,
      '/api/v2/policies/:id': `/policies/${ids.policy}`,
      '/api/v2/policy-sets/:id': `/policy-sets/${ids.policySet}`,
      '/api/v2/policy-sets/:id/parameters/:param': `/policy-sets/${ids.policySet}/parameters/${ids.parameter}`,
      '/api/v2/reserved-tag-keys/:id': `/reserved-tag-keys/${ids.reservedKey}`,
      '/api/v2/oauth-clients/:id': `/oauth-clients/${ids.oauthClient}`,
      '/api/v2/oauth-tokens/:id': `/oauth-tokens/${ids.oauthToken}`,
      [PROVIDER_ROUTE]: `/organizations/${ORG}/registry-providers/private/${ORG}/patched`,
      // The task service's callback: an empty verdict is a 422 about the body, whatever the result id.
      '/api/v2/task-results/:id/callback': '/task-results/taskrs-none/callback',
    };
    // Routes without parameters (the admin settings singletons) need no ids.
    return values[url] ?? (url.includes(':') ? undefined : url.slice('/api/v2'.length));
  };

  it('answers every PATCH route without a 5xx, and a resource document stays as it was', async () => {
    const routes = server.app.routes.filter((route) => route.method === 'PATCH' && route.url.startsWith('/api/v2/'));
    expect(routes.length).toBeGreaterThanOrEqual(12);
    const unresolved = routes.filter((route) => concrete(route.url) === undefined).map((route) => route.url);
    expect(unresolved, 'PATCH routes this test has no ids for: add them to `concrete`').toEqual([]);
    for (const route of routes) {
      const path = concrete(route.url) as string;
      const schema =
        document.paths[route.url.replace(/:([A-Za-z]+)/g, '{$1}')]?.patch?.requestBody?.content['application/vnd.api+json']?.schema;
      for (const body of emptyBodies(schema)) {
        const before = await platform(server, 'GET', path === '/account/update' ? '/account/details' : path);
        const response = await platform(server, 'PATCH', path, { body });
        const label = `PATCH ${route.url} ${JSON.stringify(body)}: ${JSON.stringify(response.body)}`;
        expect(response.status, label).toBeLessThan(500);
        // A required attribute (team access, the SSH key id) or a rule may refuse it, as a 400/422 about the body.
        if (response.status >= 400) {
          expect([400, 422], label).toContain(response.status);
          expect(response.body.errors[0].source.pointer, label).toMatch(/^\/data/);
          continue;
        }
        if (before.status === 200 && response.body?.data && !Array.isArray(response.body.data)) {
          // A PATCH counts as a change (as on the real service): only its timestamps and a variable's version may move.
          const {
            'updated-at': _after,
            'latest-change-at': _changedAfter,
            'version-id': _versionAfter,
            ...after
          } = response.body.data.attributes;
          const {
            'updated-at': _before,
            'latest-change-at': _changedBefore,
            'version-id': _versionBefore,
            ...unchanged
          } = before.body.data.attributes;
          expect(after, label).toEqual(unchanged);
        }
      }
    }
  });

  it('answers the two shapes the fuzzer found with the resource unchanged', async () => {
    const account = await platform(server, 'PATCH', '/account/update', { body: { data: { type: 'users', attributes: {} } } });
    expect(account.status).toBe(200);
    expect(account.body.data.attributes.username).toBe('admin');
    const pool = await platform(server, 'PATCH', `/agent-pools/${ids.pool}`, {
      body: { data: { type: 'agent-pools', attributes: { colour: 'blue' } } },
    });
    expect(pool.status).toBe(200);
    expect(pool.body.data.attributes.name).toBe('pool');
  });
});
