import { createHash } from 'node:crypto';
import { ADMIN_TOKEN, type TestServer } from '../helpers/app.js';
import { startReceiver } from '../platform/notifications/receiver.js';
import { tarball } from '../platform/registry/archives.js';

/**
 * Sample requests for the `/api/v2` operations of the OpenAPI document: a small world made through
 * the API (each create is itself a sample), then every read with real ids, an update that sets
 * nothing on each resource, the actions, and the deletes last. `openapi-responses.test.ts` checks
 * each answer against what the document declares for its operation.
 */

export const ORG = 'samples';
const NAME = 'sample';
const LINEAGE = '0b5c1d3e-1111-2222-3333-444455556666';

/** Path parameter values; a missing one fails the request's construction, naming it. */
type Values = Record<string, string | undefined>;

export interface Sample {
  /** `METHOD /api/v2/template/{param}` as the document names the operation. */
  operation: string;
  path: string;
  status: number;
  contentType: string | null;
  /** The parsed JSON body, `undefined` when empty, the text when not JSON. */
  body: unknown;
}

/** The path of a template with these values for its parameters. */
const fill = (template: string, values: Values) =>
  template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`${template}: no value for {${name}}`);
    return encodeURIComponent(value);
  });

const state = (serial: number) =>
  Buffer.from(
    JSON.stringify({
      version: 4,
      terraform_version: '1.11.4',
      serial,
      lineage: LINEAGE,
      outputs: { greeting: { value: 'hello', type: 'string' }, secret: { value: 's', type: 'string', sensitive: true } },
      resources: [
        {
          mode: 'managed',
          type: 'terraform_data',
          name: 'item',
          provider: 'provider["terraform.io/builtin/terraform"]',
          instances: [{ schema_version: 0, attributes: { id: 'id-0' } }],
        },
      ],
      check_results: null,
    }),
  );
const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- sample bodies are read member by member

export class Sampler {
  readonly samples: Sample[] = [];
  readonly ids: Record<string, string> = {};
  constructor(private readonly server: TestServer) {}

  /** One request to an operation; the answer is recorded and returned. */
  async call(
    method: string,
    template: string,
    values: Values = {},
    body?: unknown,
    query = '',
    token = ADMIN_TOKEN,
  ): Promise<{ status: number; body: Any }> {
    const path = `${fill(template, values)}${query}`;
    const response = await fetch(`${this.server.baseUrl}/api/v2${path}`, {
      method,
      redirect: 'manual',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/vnd.api+json',
        ...(body === undefined ? {} : { 'content-type': 'application/vnd.api+json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    const contentType = response.headers.get('content-type');
    let parsed: unknown = text === '' ? undefined : text;
    if (text !== '' && contentType?.includes('json')) parsed = JSON.parse(text) as unknown;
    this.samples.push({ operation: `${method} /api/v2${template}`, path, status: response.status, contentType, body: parsed });
    return { status: response.status, body: parsed ?? {} };
  }

  /** A create that must work (the world depends on it): its id, or a thrown error naming the answer. */
  async make(template: string, values: Values, body: unknown, key?: string): Promise<Any> {
    const made = await this.call('POST', template, values, body);
    if (made.status >= 300) throw new Error(`POST ${template}: ${made.status} ${JSON.stringify(made.body)}`);
    if (key) this.ids[key] = made.body.data.id;
    return made.body;
  }

  /** A PUT of plain bytes to an operation (a policy's source), recorded like any other answer. */
  async put(template: string, values: Values, text: string): Promise<number> {
    const path = fill(template, values);
    const response = await fetch(`${this.server.baseUrl}/api/v2${path}`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/octet-stream' },
      body: text,
    });
    const body = await response.text();
    this.samples.push({
      operation: `PUT /api/v2${template}`,
      path,
      status: response.status,
      contentType: response.headers.get('content-type'),
      body: body === '' ? undefined : body,
    });
    return response.status;
  }

  async upload(url: string, data: Buffer): Promise<void> {
    const put = await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(data) });
    if (put.status >= 300) throw new Error(`upload ${url}: ${put.status} ${await put.text()}`);
  }

  /** What an agent sends (`/api/agent/...`: its pool's agent token, plain JSON); not a sample. */
  async agent(path: string, token: string, body: unknown): Promise<Any> {
    const response = await fetch(`${this.server.baseUrl}/api/agent${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    if (response.status >= 300) throw new Error(`POST /api/agent${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as Any;
  }

  async control(method: string, path: string, body?: unknown): Promise<void> {
    const response = await fetch(`${this.server.baseUrl}/_emulator${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
    });
    if (response.status >= 300) throw new Error(`${method} /_emulator${path}: ${response.status} ${await response.text()}`);
  }

  /** Until the run's status is one of `statuses`: the engine's transition event, not a poll. */
  async runReaches(id: string | undefined, statuses: string[]): Promise<string> {
    if (id === undefined) throw new Error('no run to wait for');
    let stop = () => {};
    const reached = new Promise<string>((resolve) => {
      stop = this.server.app.platform.services.runs.engine.onTransition((event) => {
        if (event.run.id === id && statuses.includes(event.to)) resolve(event.to);
      });
    });
    try {
      // Subscribed first, so a change between the two is not missed.
      const response = await fetch(`${this.server.baseUrl}/api/v2/runs/${id}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      const status = ((await response.json()) as Any).data.attributes.status as string;
      return statuses.includes(status) ? status : await reached;
    } finally {
      stop();
    }
  }
}

const rel = (type: string, id: string | undefined) => ({ data: { type, id } });
/** A request document: one resource of `type` with its attributes and relationships. */
const doc = (type: string, attributes: Record<string, unknown>, relationships: Record<string, unknown>) => ({
  data: { type, attributes, relationships },
});

/** The feature set entitled to the most (so subscribing to it hides nothing the later samples read). */
const richest = (sets: { id: string; attributes: Record<string, unknown> }[] | undefined) => {
  const entitlements = (set: { attributes: Record<string, unknown> }) =>
    Object.values(set.attributes).filter((value) => value === true).length;
  return [...(sets ?? [])].sort((a, b) => entitlements(b) - entitlements(a))[0]?.id;
};

/** The world: an organization with one of each resource, made through the API. */
export async function buildWorld(sampler: Sampler, edition: string): Promise<void> {
  const selfHosted = edition === 'self-hosted';
  const { ids } = sampler;
  const org = { org: ORG, name: ORG, organization: ORG };
  await sampler.make('/organizations', {}, { data: { type: 'organizations', attributes: { name: ORG, email: 'owners@samples.test' } } });
  await sampler.make('/organizations/{org}/workspaces', org, { data: { type: 'workspaces', attributes: { name: NAME } } }, 'workspace');
  await sampler.make('/organizations/{org}/workspaces', org, { data: { type: 'workspaces', attributes: { name: 'source' } } }, 'source');
  await sampler.make('/organizations/{org}/projects', org, { data: { type: 'projects', attributes: { name: NAME } } }, 'project');
  await sampler.make('/organizations/{organization}/teams', org, { data: { type: 'teams', attributes: { name: NAME } } }, 'team');
  const me = await sampler.call('GET', '/account/details');
  ids.user = me.body.data.id;
  await sampler.make(
    '/users/{userId}/authentication-tokens',
    { userId: ids.user },
    { data: { type: 'authentication-tokens', attributes: { description: 'sample' } } },
    'userToken',
  );
  await sampler.make('/teams/{teamId}/authentication-token', { teamId: ids.team }, { data: { type: 'authentication-tokens' } });
  await sampler.make(
    '/teams/{teamId}/authentication-tokens',
    { teamId: ids.team },
    { data: { type: 'authentication-tokens', attributes: { description: 'another' } } },
  );
  const organizationToken = await sampler.make('/organizations/{organization}/authentication-token', org, {
    data: { type: 'authentication-tokens' },
  });
  ids.organizationToken = organizationToken.data.attributes.token as string;
  if (selfHosted)
    await sampler.make(
      '/admin/users',
      {},
      { data: { type: 'users', attributes: { username: 'sampled', email: 'sampled@samples.test' } } },
      'otherUser',
    );
  await sampler.make(
    '/organizations/{org}/organization-memberships',
    org,
    doc('organization-memberships', { email: 'invited@samples.test' }, { teams: { data: [{ type: 'teams', id: ids.team }] } }),
    'membership',
  );
  await sampler.make(
    '/organizations/{org}/ssh-keys',
    org,
    { data: { type: 'ssh-keys', attributes: { name: NAME, value: 'not-a-real-key' } } },
    'sshKey',
  );
  await sampler.make('/organizations/{org}/agent-pools', org, { data: { type: 'agent-pools', attributes: { name: NAME } } }, 'pool');
  const agentToken = await sampler.make(
    '/agent-pools/{id}/authentication-tokens',
    { id: ids.pool },
    { data: { type: 'authentication-tokens', attributes: { description: 'agent' } } },
  );
  // An agent of the pool, registered as an agent does (no workspace runs on agents: it is never handed work).
  await sampler.agent('/register', agentToken.data.attributes.token as string, { name: NAME });
  const task = { name: NAME, url: 'http://127.0.0.1:9/hook', category: 'task', description: 'checks' };
  await sampler.make('/organizations/{org}/tasks', org, { data: { type: 'tasks', attributes: task } }, 'task');
  await sampler.make(
    '/workspaces/{workspaceId}/tasks',
    { workspaceId: ids.workspace },
    doc('workspace-tasks', { 'enforcement-level': 'advisory' }, { task: rel('tasks', ids.task) }),
    'attachment',
  );
  await sampler.make(
    '/team-workspaces',
    {},
    doc('team-workspaces', { access: 'read' }, { team: rel('teams', ids.team), workspace: rel('workspaces', ids.workspace) }),
    'grant',
  );
  await sampler.make(
    '/team-projects',
    {},
    doc('team-projects', { access: 'read' }, { team: rel('teams', ids.team), project: rel('projects', ids.project) }),
    'teamProject',
  );
  await sampler.make(
    '/workspaces/{id}/vars',
    { id: ids.workspace },
    { data: { type: 'vars', attributes: { key: 'k', value: 'v', category: 'env' } } },
    'variable',
  );
  await sampler.make(
    '/vars',
    {},
    doc('vars', { key: 'other', value: 'v', category: 'terraform' }, { workspace: rel('workspaces', ids.workspace) }),
    'variable2',
  );
  await sampler.make('/organizations/{org}/varsets', org, { data: { type: 'varsets', attributes: { name: NAME } } }, 'varset');
  await sampler.make(
    '/varsets/{id}/relationships/vars',
    { id: ids.varset },
    { data: { type: 'vars', attributes: { key: 'k', value: 'v', category: 'terraform' } } },
    'setVariable',
  );
  await sampler.make(
    '/organizations/{org}/reserved-tag-keys',
    org,
    { data: { type: 'reserved-tag-keys', attributes: { key: 'reserved' } } },
    'reservedKey',
  );
  await sampler.make(
    '/workspaces/{id}/run-triggers',
    { id: ids.workspace },
    { data: { type: 'run-triggers', relationships: { sourceable: rel('workspaces', ids.source) } } },
    'runTrigger',
  );
  await sampler.make(
    '/workspaces/{id}/notification-configurations',
    { id: ids.workspace },
    {
      data: {
        type: 'notification-configurations',
        attributes: { name: NAME, 'destination-type': 'generic', url: 'http://127.0.0.1:9/hook', enabled: false },
      },
    },
    'notification',
  );
  await sampler.make(
    '/organizations/{org}/policies',
    org,
    { data: { type: 'policies', attributes: { name: NAME, kind: 'sentinel', 'enforcement-level': 'soft-mandatory' } } },
    'policy',
  );
  await sampler.make('/organizations/{org}/policy-sets', org, { data: { type: 'policy-sets', attributes: { name: NAME } } }, 'policySet');
  await sampler.make(
    '/policy-sets/{id}/parameters',
    { id: ids.policySet },
    { data: { type: 'vars', attributes: { key: 'p', value: 'v', category: 'policy-set' } } },
    'parameter',
  );
  await sampler.make('/policy-sets/{id}/versions', { id: ids.policySet }, undefined, 'policySetVersion');
  await sampler.make(
    '/organizations/{org}/oauth-clients',
    org,
    {
      data: {
        type: 'oauth-clients',
        attributes: {
          'service-provider': 'github',
          'http-url': 'http://127.0.0.1:9',
          'api-url': 'http://127.0.0.1:9',
          'oauth-token-string': 't',
        },
      },
    },
    'oauthClient',
  );
  const client = await sampler.call('GET', '/oauth-clients/{id}', { id: ids.oauthClient });
  ids.oauthToken = client.body.data.relationships['oauth-tokens'].data[0].id;
  const moduleBody = await sampler.make(
    '/organizations/{org}/registry-modules',
    org,
    { data: { type: 'registry-modules', attributes: { name: NAME, provider: 'aws' } } },
    'module',
  );
  void moduleBody;
  const version = await sampler.make(
    `/organizations/{org}/registry-modules/{registry}/{namespace}/{name}/{provider}/versions`,
    { org: ORG, registry: 'private', namespace: ORG, name: NAME, provider: 'aws' },
    { data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } } },
  );
  await sampler.upload(version.data.links.upload, await tarball([{ name: 'main.tf', content: 'variable "region" {}\n' }]));
  await sampler.make(
    '/organizations/{org}/no-code-modules',
    org,
    { data: { type: 'no-code-modules', relationships: { 'registry-module': rel('registry-modules', ids.module) } } },
    'noCode',
  );
  await sampler.make(
    '/organizations/{org}/registry-providers',
    org,
    {
      data: { type: 'registry-providers', attributes: { name: NAME, namespace: ORG, 'registry-name': 'private' } },
    },
    'provider',
  );
  const provider = { org: ORG, registry: 'private', namespace: ORG, name: NAME };
  await sampler.make('/organizations/{org}/registry-providers/{registry}/{namespace}/{name}/versions', provider, {
    data: { type: 'registry-provider-versions', attributes: { version: '1.0.0', 'key-id': 'ABCDEF0123456789', protocols: ['5.0'] } },
  });
  await sampler.make(
    '/organizations/{org}/registry-providers/{registry}/{namespace}/{name}/versions/{version}/platforms',
    { ...provider, version: '1.0.0' },
    {
      data: { type: 'registry-provider-platforms', attributes: { os: 'linux', arch: 'amd64', shasum: 'a'.repeat(64), filename: 'p.zip' } },
    },
  );
  for (const tool of selfHosted ? ['terraform', 'opa', 'sentinel'] : []) {
    await sampler.make(
      `/admin/${tool}-versions`,
      {},
      {
        data: { type: `${tool}-versions`, attributes: { version: '9.0.4545', url: 'https://example.com/tool.zip', sha: 'a'.repeat(64) } },
      },
      `${tool}Version`,
    );
  }

  // State: a version under the lock.
  await sampler.call('POST', '/workspaces/{id}/actions/lock', { id: ids.workspace });
  const raw = state(1);
  await sampler.make(
    '/workspaces/{id}/state-versions',
    { id: ids.workspace },
    {
      data: { type: 'state-versions', attributes: { serial: 1, lineage: LINEAGE, md5: md5(raw), state: raw.toString('base64') } },
    },
    'stateVersion',
  );
  await sampler.call('POST', '/workspaces/{id}/actions/unlock', { id: ids.workspace });

  // A run on the source workspace, planned by the real CLI and left waiting for confirmation.
  const cv = await sampler.make(
    '/workspaces/{id}/configuration-versions',
    { id: ids.source },
    {
      data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } },
    },
    'cv',
  );
  await sampler.upload(
    cv.data.attributes['upload-url'],
    await tarball([{ name: 'main.tf', content: 'output "greeting" {\n  value = "hello"\n}\n' }]),
  );
  const run = await sampler.make(
    '/runs',
    {},
    {
      data: { type: 'runs', attributes: { message: 'sampled' }, relationships: { workspace: rel('workspaces', ids.source) } },
    },
    'run',
  );
  ids.plan = run.data.relationships.plan.data.id;
  ids.apply = run.data.relationships.apply.data.id;
  await sampler.runReaches(ids.run, ['planned', 'errored', 'policy_checked', 'cost_estimated']);
  await sampler.make('/runs/{id}/comments', { id: ids.run }, { data: { type: 'comments', attributes: { body: 'looks fine' } } }, 'comment');
  await sampler.make(
    '/plan-exports',
    {},
    doc('plan-exports', { 'data-type': 'sentinel-mock-bundle-v0' }, { plan: rel('plans', ids.plan) }),
    'planExport',
  );
  // A query run over the source workspace's configuration (its progression is immediate here).
  await sampler.make(
    '/queries',
    {},
    { data: { type: 'queries', attributes: { source: 'tfe-api' }, relationships: { workspace: rel('workspaces', ids.source) } } },
    'query',
  );
}

/** Ids only reads reveal: run events, task stages, outputs, policy checks. */
export async function discover(sampler: Sampler): Promise<void> {
  const { ids } = sampler;
  const first = async (template: string, values: Values, key: string) => {
    const listed = await sampler.call('GET', template, values);
    const id = (listed.body.data as { id: string }[] | undefined)?.[0]?.id;
    if (id) ids[key] = id;
  };
  await first('/runs/{id}/run-events', { id: ids.run }, 'runEvent');
  await first('/runs/{id}/task-stages', { id: ids.run }, 'taskStage');
  await first('/runs/{id}/policy-checks', { id: ids.run }, 'policyCheck');
  await first('/state-versions/{id}/outputs', { id: ids.stateVersion }, 'output');
  await first('/agent-pools/{id}/agents', { id: ids.pool }, 'agent');
}

/** The value of each path parameter, by the segment before it (or the parameter's own name). */
export function valuesFor(template: string, ids: Record<string, string>): Record<string, string> | undefined {
  const segments = template.split('/').filter(Boolean);
  const values: Record<string, string> = {};
  const bySegment: Record<string, string | undefined> = {
    workspaces: ids.workspace,
    runs: ids.run,
    plans: ids.plan,
    applies: ids.apply,
    'configuration-versions': ids.cv,
    'state-versions': ids.stateVersion,
    'state-version-outputs': ids.output,
    teams: ids.team,
    users: template.startsWith('/admin/users') ? ids.otherUser : ids.user,
    'authentication-tokens': ids.userToken,
    projects: ids.project,
    'team-projects': ids.teamProject,
    'run-events': ids.runEvent,
    comments: ids.comment,
    'task-stages': ids.taskStage,
    'task-results': ids.taskResult,
    'run-triggers': ids.runTrigger,
    'notification-configurations': ids.notification,
    policies: ids.policy,
    'policy-sets': ids.policySet,
    'policy-set-versions': ids.policySetVersion,
    'policy-checks': ids.policyCheck,
    parameters: ids.parameter,
    'plan-exports': ids.planExport,
    vars: segments[0] === 'varsets' ? ids.setVariable : ids.variable2,
    varsets: ids.varset,
    'reserved-tag-keys': ids.reservedKey,
    'agent-pools': ids.pool,
    agents: ids.agent,
    'ssh-keys': ids.sshKey,
    'team-workspaces': ids.grant,
    tasks: segments[0] === 'workspaces' ? ids.attachment : ids.task,
    'organization-memberships': ids.membership,
    'terraform-versions': ids.terraformVersion,
    'opa-versions': ids.opaVersion,
    'sentinel-versions': ids.sentinelVersion,
    'oauth-clients': ids.oauthClient,
    'oauth-tokens': ids.oauthToken,
    'registry-modules': ids.module,
    'registry-providers': ids.provider,
    'no-code-modules': ids.noCode,
    queries: ids.query,
    'policy-evaluations': ids.policyEvaluation,
    'policy-set-outcomes': ids.policySetOutcome,
  };
  const byName: Record<string, string> = {
    org: ORG,
    organization: ORG,
    registry: 'private',
    namespace: ORG,
    provider: 'aws',
    version: '1.0.0',
    os: 'linux',
    arch: 'amd64',
    workspaceId: ids.workspace ?? '',
    userId: ids.user ?? '',
    teamId: ids.team ?? '',
    param: ids.parameter ?? '',
  };
  for (let index = 0; index < segments.length; index++) {
    const capture = /^\{(.+)\}$/.exec(segments[index] ?? '');
    if (!capture) continue;
    const name = capture[1] ?? '';
    const before = segments[index - 1] ?? '';
    let value: string | undefined;
    if (name === 'name') value = before === 'organizations' ? ORG : NAME;
    else if (name === 'var') value = segments[0] === 'varsets' ? ids.setVariable : ids.variable;
    else value = byName[name] ?? bySegment[before];
    if (value === undefined || value === '') return undefined;
    values[name] = value;
  }
  return values;
}

/** Queries some lists require (a filter they refuse to go without) or a read needs. */
export function queryFor(template: string, ids: Record<string, string>): string {
  const queries: Record<string, string> = {
    '/state-versions': `?filter[workspace][name]=${NAME}&filter[organization][name]=${ORG}`,
    '/team-projects': `?filter[project][id]=${ids.project}`,
    '/team-workspaces': `?filter[workspace][id]=${ids.workspace}`,
    '/workspaces/{id}/run-triggers': '?filter[run-trigger][type]=inbound',
    '/vars': `?filter[organization][name]=${ORG}&filter[workspace][name]=${NAME}`,
    '/organizations/{org}/registry-modules/{registry}/{namespace}/{name}/{provider}/version': '?module_version=1.0.0',
  };
  return queries[template] ?? '';
}

const identifiers = (type: string, ...ids: (string | undefined)[]) => ({ data: ids.map((id) => ({ type, id })) });

/** Bodies of the relationship writes (the same body adds and removes). */
function relationshipBody(template: string, ids: Record<string, string>): unknown {
  const bodies: Record<string, unknown> = {
    '/workspaces/{id}/relationships/tags': { data: [{ type: 'tags', attributes: { name: 'blue' } }] },
    '/tags/{id}/relationships/workspaces': identifiers('workspaces', ids.source),
    '/organizations/{org}/tags': identifiers('tags', ids.tag),
    '/workspaces/{id}/relationships/remote-state-consumers': identifiers('workspaces', ids.source),
    '/varsets/{id}/relationships/workspaces': identifiers('workspaces', ids.workspace),
    '/varsets/{id}/relationships/projects': identifiers('projects', ids.project),
    '/policy-sets/{id}/relationships/policies': identifiers('policies', ids.policy),
    '/policy-sets/{id}/relationships/workspaces': identifiers('workspaces', ids.workspace),
    '/policy-sets/{id}/relationships/projects': identifiers('projects', ids.project),
    '/policy-sets/{id}/relationships/workspace-exclusions': identifiers('workspaces', ids.source),
    '/teams/{id}/relationships/users': identifiers('users', 'admin'),
    '/teams/{id}/relationships/organization-memberships': identifiers('organization-memberships', ids.membership),
    '/admin/organizations/{org}/relationships/module-consumers': identifiers('organizations', 'understudy'),
    '/workspaces/{id}/tag-bindings': { data: [{ type: 'tag-bindings', attributes: { key: 'env', value: 'sample' } }] },
    '/projects/{id}/tag-bindings': { data: [{ type: 'tag-bindings', attributes: { key: 'team', value: 'sample' } }] },
    '/oauth-clients/{id}/relationships/projects': identifiers('projects', ids.project),
  };
  return bodies[template];
}

/** Writes that give the reads something to list: tags, bindings, consumers, set members, a discarded run. */
export async function relate(sampler: Sampler): Promise<void> {
  const { ids } = sampler;
  await sampler.call(
    'PATCH',
    '/workspaces/{id}',
    { id: ids.workspace },
    { data: { type: 'workspaces', attributes: { 'global-remote-state': false } } },
  );
  for (const template of [
    '/workspaces/{id}/relationships/tags',
    '/policy-sets/{id}/relationships/workspace-exclusions',
    '/workspaces/{id}/relationships/remote-state-consumers',
    '/varsets/{id}/relationships/workspaces',
    '/varsets/{id}/relationships/projects',
    '/policy-sets/{id}/relationships/policies',
    '/policy-sets/{id}/relationships/workspaces',
    '/policy-sets/{id}/relationships/projects',
    '/teams/{id}/relationships/users',
    '/teams/{id}/relationships/organization-memberships',
    '/oauth-clients/{id}/relationships/projects',
  ]) {
    const values = valuesFor(template, ids) ?? {};
    await sampler.call('POST', template, values, relationshipBody(template, ids));
  }
  const tags = await sampler.call('GET', '/organizations/{org}/tags', { org: ORG });
  ids.tag = tags.body.data?.[0]?.id;
  await sampler.call(
    'POST',
    '/tags/{id}/relationships/workspaces',
    { id: ids.tag },
    relationshipBody('/tags/{id}/relationships/workspaces', ids),
  );
  for (const template of ['/workspaces/{id}/tag-bindings', '/projects/{id}/tag-bindings']) {
    await sampler.call('PATCH', template, valuesFor(template, ids) ?? {}, relationshipBody(template, ids));
  }
  await sampler.call(
    'PATCH',
    '/workspaces/{id}/relationships/ssh-key',
    { id: ids.workspace },
    {
      data: { type: 'workspaces', attributes: { id: ids.sshKey } },
    },
  );
  // Data retention policies (self-hosted edition; elsewhere not a route, 404): one of each kind.
  await sampler.call(
    'POST',
    '/organizations/{org}/relationships/data-retention-policy',
    { org: ORG },
    { data: { type: 'data-retention-policy-delete-olders', attributes: { 'delete-older-than-n-days': 3650 } } },
  );
  await sampler.call(
    'POST',
    '/workspaces/{id}/relationships/data-retention-policy',
    { id: ids.workspace },
    { data: { type: 'data-retention-policy-dont-deletes' } },
  );
  // The source workspace has no policy of its own: `data: null`.
  await sampler.call('GET', '/workspaces/{id}/relationships/data-retention-policy', { id: ids.source });
  await sampler.call('POST', '/workspaces/{id}/actions/lock', { id: ids.workspace });
  await sampler.call('POST', '/workspaces/{id}/actions/force-unlock', { id: ids.workspace });
  const consumers = '/workspaces/{id}/relationships/remote-state-consumers';
  await sampler.call('PATCH', consumers, { id: ids.workspace }, relationshipBody(consumers, ids));
  await sampler.call(
    'PATCH',
    '/admin/organizations/{org}/relationships/module-consumers',
    { org: ORG },
    relationshipBody('/admin/organizations/{org}/relationships/module-consumers', ids),
  );
}

/** Actions on the world: the run discarded, the notification verified, the administrator's switches. */
export async function act(sampler: Sampler): Promise<void> {
  const { ids } = sampler;
  await sampler.call('POST', '/runs/{id}/actions/discard', { id: ids.run }, { comment: 'sampled' });
  await sampler.runReaches(ids.run, ['discarded']);
  // Verified against a receiver that answers 200 (the configuration stays disabled: nothing else is sent to it).
  const receiver = await startReceiver();
  try {
    const destination = { data: { type: 'notification-configurations', attributes: { url: receiver.url } } };
    await sampler.call('PATCH', '/notification-configurations/{id}', { id: ids.notification }, destination);
    await sampler.call('POST', '/notification-configurations/{id}/actions/verify', { id: ids.notification });
  } finally {
    await receiver.close();
  }
  await sampler.call('POST', '/configuration-versions/{id}/actions/archive', { id: ids.cv });
  // The administrator's user actions (self-hosted edition: the user was made through /admin/users).
  for (const action of ids.otherUser ? ['suspend', 'unsuspend', 'grant_admin', 'revoke_admin', 'disable_two_factor'] : []) {
    await sampler.call('POST', `/admin/users/{id}/actions/${action}`, { id: ids.otherUser });
  }
  await sampler.call('POST', '/admin/saml-settings/actions/revoke-old-certificate');
  // The hosted edition's audit trail, read with the organization's token (elsewhere: not a route, 404).
  await sampler.call('POST', '/organizations/{org}/audit-configuration/test', { org: ORG });
  await sampler.call('GET', '/organization/audit-trail', {}, undefined, '', ids.organizationToken);
  // The sentinel policy fails soft-mandatory: the planned run's check waits for an override (runActions).
  await sampler.put('/policies/{id}/upload', { id: ids.policy }, 'main = rule { false } # understudy:fail\n');
  await sampler.call('GET', '/policies/{id}/download', { id: ids.policy });
  const notification = {
    data: {
      type: 'notification-configurations',
      attributes: { name: NAME, 'destination-type': 'generic', url: 'http://127.0.0.1:9/hook', enabled: false },
    },
  };
  await sampler.call('POST', '/teams/{id}/notification-configurations', { id: ids.team }, notification);
  await sampler.call('POST', '/projects/{id}/notification-configurations', { id: ids.project }, notification);
  const sets = await sampler.call('GET', '/admin/feature-sets');
  await sampler.call(
    'POST',
    '/admin/organizations/{org}/subscription',
    { org: ORG },
    doc('subscription', { 'runs-ceiling': 10 }, { 'feature-set': rel('feature-sets', richest(sets.body.data)) }),
  );
  await sampler.make(
    '/registry-modules/{org}/{name}/{provider}/versions',
    { org: ORG, name: NAME, provider: 'aws' },
    {
      data: { type: 'registry-module-versions', attributes: { version: '1.1.0' } },
    },
  );
  await sampler.call('POST', '/registry-modules/actions/delete/{org}/{name}/{provider}/{version}', {
    org: ORG,
    name: NAME,
    provider: 'aws',
    version: '1.1.0',
  });
  // A second state version, then a rollback to the first.
  await sampler.call('POST', '/workspaces/{id}/actions/lock', { id: ids.workspace });
  const raw = state(2);
  await sampler.make(
    '/workspaces/{id}/state-versions',
    { id: ids.workspace },
    {
      data: { type: 'state-versions', attributes: { serial: 2, lineage: LINEAGE, md5: md5(raw), state: raw.toString('base64') } },
    },
  );
  await sampler.call(
    'PATCH',
    '/workspaces/{id}/state-versions',
    { id: ids.workspace },
    {
      data: { type: 'state-versions', relationships: { 'rollback-state-version': rel('state-versions', ids.stateVersion) } },
    },
  );
  await sampler.call('POST', '/workspaces/{id}/actions/unlock', { id: ids.workspace });
  // Safe deletes, each on a workspace of its own.
  for (const name of ['doomed-safe-1', 'doomed-safe-2']) {
    await sampler.make('/organizations/{org}/workspaces', { org: ORG }, { data: { type: 'workspaces', attributes: { name } } }, name);
  }
  await sampler.call('POST', '/workspaces/{id}/actions/safe-delete', { id: ids['doomed-safe-1'] });
  await sampler.call('POST', '/organizations/{org}/workspaces/{name}/actions/safe-delete', { org: ORG, name: 'doomed-safe-2' });
  await runActions(sampler);
  await sampler.call('POST', '/admin/oidc-settings/actions/rotate-key');
  await sampler.call('POST', '/admin/oidc-settings/actions/trim-key');
}

/** A PATCH that sets nothing, on every PATCH operation with ids (the body's type from its request schema). */
export async function patchAll(sampler: Sampler, operations: { path: string; type: string }[]): Promise<void> {
  for (const { path, type } of operations) {
    const template = path.slice('/api/v2'.length);
    if (relationshipBody(template, sampler.ids) !== undefined) continue;
    const values = valuesFor(template, sampler.ids);
    if (values) await sampler.call('PATCH', template, values, { data: { type, attributes: {} } });
  }
}

/** Resources made to be deleted, where several routes delete the same kind (each route gets its own). */
export async function doom(sampler: Sampler): Promise<void> {
  const { ids } = sampler;
  const org = { org: ORG };
  for (const name of ['doomed-by-name', 'doomed-by-admin']) {
    await sampler.make('/organizations/{org}/workspaces', org, { data: { type: 'workspaces', attributes: { name } } }, name);
  }
  await sampler.make(
    '/organizations',
    {},
    { data: { type: 'organizations', attributes: { name: 'doomed-org', email: 'doomed@samples.test' } } },
  );
  for (const name of ['doomed-a', 'doomed-b', 'doomed-c', 'doomed-d']) {
    await sampler.make('/organizations/{org}/registry-modules', org, {
      data: { type: 'registry-modules', attributes: { name, provider: 'aws' } },
    });
  }
  await sampler.call('POST', '/registry-modules/actions/delete/{org}/{name}', { org: ORG, name: 'doomed-c' });
  await sampler.call('POST', '/registry-modules/actions/delete/{org}/{name}/{provider}', { org: ORG, name: 'doomed-d', provider: 'aws' });
  void ids;
}

/** Where a DELETE route is sampled on a resource of its own (see `doom`). */
const DOOMED: Record<string, Values> = {
  '/organizations/{org}/workspaces/{name}': { org: ORG, name: 'doomed-by-name' },
  '/admin/organizations/{org}': { org: 'doomed-org' },
  '/organizations/{org}/registry-modules/{registry}/{namespace}/{name}/{provider}': {
    org: ORG,
    registry: 'private',
    namespace: ORG,
    name: 'doomed-a',
    provider: 'aws',
  },
  '/organizations/{org}/registry-modules/{registry}/{namespace}/{name}': {
    org: ORG,
    registry: 'private',
    namespace: ORG,
    name: 'doomed-b',
  },
};

/** Kinds that hold others: deleted after everything in them. */
const CONTAINERS = [
  'oauth-clients',
  'workspaces',
  'projects',
  'teams',
  'organizations',
  'varsets',
  'policy-sets',
  'agent-pools',
  'registry-modules',
  'registry-providers',
];

/** Every DELETE with ids: what lives inside a container first, containers after, the organization last. */
export async function deleteAll(sampler: Sampler, templates: string[]): Promise<void> {
  const rank = (template: string) => {
    if (template === '/organizations/{name}') return 3;
    const named = template.split('/').filter((segment) => segment && !segment.startsWith('{'));
    if (named.includes('relationships')) return 0;
    return CONTAINERS.includes(named.at(-1) ?? '') ? 2 : 1;
  };
  const values = (template: string) =>
    template === '/admin/workspaces/{id}' ? { id: sampler.ids['doomed-by-admin'] } : (DOOMED[template] ?? valuesFor(template, sampler.ids));
  for (const template of [...templates].sort((a, b) => rank(a) - rank(b) || b.split('/').length - a.split('/').length)) {
    const filled = values(template);
    if (filled) await sampler.call('DELETE', template, filled, relationshipBody(template, sampler.ids));
  }
}

/** A configuration version with one output uploaded on the workspace; its id. */
async function configuration(sampler: Sampler, workspace: string | undefined): Promise<string> {
  const cv = await sampler.make(
    '/workspaces/{id}/configuration-versions',
    { id: workspace },
    {
      data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } },
    },
  );
  await sampler.upload(
    cv.data.attributes['upload-url'] as string,
    await tarball([{ name: 'main.tf', content: 'output "greeting" {\n  value = "hello"\n}\n' }]),
  );
  return cv.data.id as string;
}

const queueRun = async (sampler: Sampler, workspace: string | undefined) =>
  (await sampler.make('/runs', {}, { data: { type: 'runs', attributes: {}, relationships: { workspace: rel('workspaces', workspace) } } }))
    .data.id as string;

/**
 * The run actions. On the workspace with a run task and a policy set: a run planned (its task
 * stage, task result and policy check read), then applied. On the other, held by the manual
 * progression: one run canceled, then force-canceled, one force-executed past another.
 */
async function runActions(sampler: Sampler): Promise<void> {
  const { ids } = sampler;
  await configuration(sampler, ids.workspace);
  // An overridable OPA set whose mandatory policy fails: the run's post-plan stage waits for an override.
  const opa = await sampler.make(
    '/organizations/{org}/policies',
    { org: ORG },
    {
      data: {
        type: 'policies',
        attributes: { name: 'opa-sample', kind: 'opa', query: 'data.sample.rule', 'enforcement-level': 'mandatory' },
      },
    },
  );
  await sampler.put(
    '/policies/{id}/upload',
    { id: opa.data.id as string },
    'package sample rule["not allowed"] { true } # understudy:fail\n',
  );
  await sampler.make(
    '/organizations/{org}/policy-sets',
    { org: ORG },
    doc(
      'policy-sets',
      { name: 'opa-sample', kind: 'opa', overridable: true },
      { policies: identifiers('policies', opa.data.id as string), workspaces: identifiers('workspaces', ids.workspace) },
    ),
  );
  const applied = await queueRun(sampler, ids.workspace);
  const settled = ['planned', 'policy_checked', 'policy_override', 'errored', 'planned_and_finished'];
  const held = await sampler.runReaches(applied, [...settled, 'post_plan_awaiting_decision']);
  const stages = await sampler.call('GET', '/runs/{id}/task-stages', { id: applied });
  ids.taskStage = stages.body.data?.[0]?.id as string;
  ids.taskResult = stages.body.data?.[0]?.relationships['task-results'].data[0]?.id as string;
  for (const template of ['/task-stages/{id}', '/task-results/{id}']) await sampler.call('GET', template, valuesFor(template, ids) ?? {});
  const evaluations = await sampler.call('GET', '/task-stages/{id}/policy-evaluations', { id: ids.taskStage });
  ids.policyEvaluation = evaluations.body.data?.[0]?.id as string;
  const outcomes = await sampler.call('GET', '/policy-evaluations/{id}/policy-set-outcomes', { id: ids.policyEvaluation });
  ids.policySetOutcome = outcomes.body.data?.[0]?.id as string;
  for (const template of ['/policy-evaluations/{id}', '/policy-set-outcomes/{id}'])
    await sampler.call('GET', template, valuesFor(template, ids) ?? {});
  await sampler.call('POST', '/task-stages/{id}/actions/override', { id: ids.taskStage });
  const planned = held === 'post_plan_awaiting_decision' ? await sampler.runReaches(applied, settled) : held;
  const checks = await sampler.call('GET', '/runs/{id}/policy-checks', { id: applied });
  ids.policyCheck = checks.body.data?.[0]?.id as string;
  for (const template of ['/policy-checks/{id}', '/policy-checks/{id}/output'])
    await sampler.call('GET', template, valuesFor(template, ids) ?? {});
  await sampler.call('POST', '/policy-checks/{id}/actions/override', { id: ids.policyCheck });
  const confirmable =
    planned === 'policy_override'
      ? await sampler.runReaches(
          applied,
          settled.filter((status) => status !== 'policy_override'),
        )
      : planned;
  if (confirmable !== 'errored' && confirmable !== 'planned_and_finished') {
    await sampler.call('POST', '/runs/{id}/actions/apply', { id: applied }, { comment: 'sampled' });
    await sampler.runReaches(applied, ['applied', 'errored']);
  }
  await sampler.control('PUT', '/runs/progression', { mode: 'manual', workspace: ids.source });
  await configuration(sampler, ids.source);
  // The first configuration is no longer the newest: it can be archived.
  await sampler.call('POST', '/configuration-versions/{id}/actions/archive', { id: ids.cv });
  // A query run held by the manual progression, canceled; the source workspace's queries listed.
  const query = await sampler.make(
    '/queries',
    {},
    { data: { type: 'queries', attributes: { source: 'tfe-api' }, relationships: { workspace: rel('workspaces', ids.source) } } },
  );
  await sampler.call('POST', '/queries/{id}/actions/cancel', { id: query.data.id as string });
  await sampler.call('GET', '/workspaces/{id}/queries', { id: ids.source });
  const first = await queueRun(sampler, ids.source);
  const waiting = await queueRun(sampler, ids.source);
  await sampler.call('POST', '/runs/{id}/actions/force-execute', { id: waiting });
  await sampler.call('POST', '/runs/{id}/actions/cancel', { id: waiting }, { comment: 'sampled' });
  // Force-cancel is offered once the cool-off after a cancel has passed.
  await sampler.control('POST', '/clock', { advance: '1h' });
  await sampler.call('POST', '/runs/{id}/actions/force-cancel', { id: waiting });
  const another = await queueRun(sampler, ids.source);
  void first;
  await sampler.call('POST', '/admin/runs/{id}/actions/force-cancel', { id: another });
}
