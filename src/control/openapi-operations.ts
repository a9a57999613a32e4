/**
 * What every operation of the OpenAPI document gets without its route saying so: tags (named
 * after README sections, so the reference is grouped as the README is), a summary derived from
 * the method and the path, and response schemas. Routes registered later get them too; a route's
 * own `summary` or `tags` wins, and SUMMARIES holds the hand-written ones for paths whose derived
 * summary reads badly.
 */

type Json = Record<string, unknown>;

/** README section names (headings without their code marks), with what each tag covers. */
export const README_TAGS = [
  { name: 'Platform API', description: '/api/v2: JSON:API, `Authorization: Bearer <token>`' },
  { name: 'Organizations, users and teams', description: 'organizations, memberships, users, teams, tokens, team access' },
  { name: 'Workspaces', description: 'workspaces, tags, variable sets, SSH keys, agent pools, remote-state consumers' },
  { name: 'Terraform state: terraform apply with a cloud block', description: 'projects, state versions, outputs, variables, locks' },
  { name: 'Runs: remote plan and apply', description: 'configuration versions, runs, plans, applies, triggers, run tasks' },
  { name: 'Module registry', description: 'the management API, VCS connections and the modules.v1 protocol' },
  { name: 'Administrator settings', description: '/api/v2/admin and the signing keys' },
  { name: 'Control plane', description: '/_emulator' },
  { name: 'Managed keys', description: 'managed keys and the key service stand-ins' },
  { name: 'Secrets API', description: '/v1: `X-Vault-Token` / `X-Store-Token`' },
  { name: 'Key/value secrets', description: 'kv and cubbyhole' },
  { name: 'Auth methods', description: 'userpass, approle, jwt and oidc' },
  { name: 'Audit devices', description: 'sys/audit' },
  { name: 'Response wrapping and token roles', description: 'sys/wrapping and auth/token/roles' },
  { name: 'Database credentials', description: 'the database engine' },
  { name: 'Transit', description: 'the transit engine' },
  { name: 'PKI', description: 'the PKI engine' },
  { name: 'Identity', description: 'identity/: entities, groups, aliases and identity tokens' },
] as const;

export type ReadmeTag = (typeof README_TAGS)[number]['name'];

const STATE = 'Terraform state: terraform apply with a cloud block';
const RUNS = 'Runs: remote plan and apply';
const PEOPLE = 'Organizations, users and teams';

/** The section of an `/api/v2` resource, by the path segment naming it (the deepest one that is known wins). */
const RESOURCE_TAGS: Record<string, ReadmeTag> = {
  organizations: PEOPLE,
  'organization-memberships': PEOPLE,
  'entitlement-set': PEOPLE,
  subscription: PEOPLE,
  users: PEOPLE,
  account: PEOPLE,
  'authentication-tokens': PEOPLE,
  'authentication-token': PEOPLE,
  teams: PEOPLE,
  'team-tokens': PEOPLE,
  'team-workspaces': PEOPLE,
  workspaces: 'Workspaces',
  tags: 'Workspaces',
  'reserved-tag-keys': 'Workspaces',
  varsets: 'Workspaces',
  'ssh-keys': 'Workspaces',
  'ssh-key': 'Workspaces',
  'agent-pools': 'Workspaces',
  agents: 'Workspaces',
  'remote-state-consumers': 'Workspaces',
  projects: STATE,
  'team-projects': STATE,
  'state-versions': STATE,
  'state-version-outputs': STATE,
  'current-state-version': STATE,
  'current-state-version-outputs': STATE,
  outputs: STATE,
  vars: STATE,
  lock: STATE,
  unlock: STATE,
  'force-unlock': STATE,
  'configuration-versions': RUNS,
  runs: RUNS,
  plans: RUNS,
  applies: RUNS,
  'run-events': RUNS,
  queries: RUNS,
  comments: RUNS,
  'run-triggers': RUNS,
  tasks: RUNS,
  'task-stages': RUNS,
  'task-results': RUNS,
  'policy-evaluations': RUNS,
  'policy-set-outcomes': RUNS,
  capacity: RUNS,
  'notification-configurations': RUNS,
  'registry-modules': 'Module registry',
  'registry-providers': 'Module registry',
  'oauth-clients': 'Module registry',
  'oauth-tokens': 'Module registry',
  admin: 'Administrator settings',
};

/** Outside `/api/v2`: the first matching prefix names the section. */
const PREFIX_TAGS: [string, ReadmeTag[]][] = [
  ['/_emulator/cloud-', ['Managed keys', 'Control plane']],
  ['/_emulator', ['Control plane']],
  ['/api/registry', ['Module registry']],
  ['/.well-known/terraform.json', ['Module registry']],
  ['/.well-known', ['Administrator settings']],
  ['/_archivist/v1/object', [STATE]],
  ['/_archivist/v1/runs', [RUNS]],
  ['/keys/', ['Managed keys']],
  ['/v1', ['Secrets API']],
  ['/api/', ['Platform API']],
];

const isParameter = (segment: string) => segment.startsWith(':') || segment.startsWith('{');

export function tagsOf(url: string): ReadmeTag[] {
  if (url.startsWith('/api/v2/')) {
    const segments = url
      .slice('/api/v2/'.length)
      .split('/')
      .filter((segment) => !isParameter(segment));
    const known = segments.reverse().find((segment) => RESOURCE_TAGS[segment] !== undefined);
    return [known ? (RESOURCE_TAGS[known] as ReadmeTag) : 'Platform API'];
  }
  return PREFIX_TAGS.find(([prefix]) => url.startsWith(prefix))?.[1] ?? ['Control plane'];
}

/** The section of a `/v1` path from the path tables, by its mount or system path. */
export function secretsTagOf(path: string, engine: string): ReadmeTag {
  if (path.startsWith('/v1/sys/audit')) return 'Audit devices';
  if (path.startsWith('/v1/sys/wrapping') || path.startsWith('/v1/auth/token/roles')) return 'Response wrapping and token roles';
  if (path.startsWith('/v1/sys/managed-keys')) return 'Managed keys';
  const byEngine: Record<string, ReadmeTag> = {
    kv: 'Key/value secrets',
    cubbyhole: 'Key/value secrets',
    database: 'Database credentials',
    transit: 'Transit',
    pki: 'PKI',
    userpass: 'Auth methods',
    approle: 'Auth methods',
    jwt: 'Auth methods',
    oidc: 'Auth methods',
    identity: 'Identity',
  };
  return byEngine[engine] ?? 'Secrets API';
}

/** Hand-written summaries, keyed `METHOD /path` as registered, where the derived one reads badly. */
const SUMMARIES: Record<string, string> = {
  'GET /api/v2/ping': 'Check that the API answers',
  'GET /api/meta/ip-ranges': 'The address ranges the service’s traffic comes from (hosted edition)',
  'GET /api/v2/account/details': 'Show the caller’s own account',
  'PATCH /api/v2/account/update': 'Update the caller’s own account',
  'GET /api/v2/organizations/:name/entitlement-set': 'Show what an organization is entitled to',
  'GET /api/v2/organizations/:org/capacity': 'Show an organization’s queued and running runs',
  'GET /api/v2/organizations/:org/runs/queue': 'List an organization’s queued runs',
  'POST /api/v2/runs': 'Queue a run',
  'GET /api/v2/plans/:id/json-output': 'Download a plan as JSON',
  'GET /api/v2/plans/:id/json-output-redacted': 'Download a plan as redacted JSON',
  'GET /api/v2/runs/:id/plan/json-output': 'Download a run’s plan as JSON',
  'POST /api/v2/workspaces/:id/state-versions': 'Create a state version (needs the workspace lock)',
  'PATCH /api/v2/workspaces/:id/state-versions': 'Roll back to an earlier state version',
  'GET /api/v2/workspaces/:id/current-state-version': 'Show a workspace’s current state version',
  'GET /api/v2/workspaces/:id/current-state-version-outputs': 'List the outputs of a workspace’s current state version',
  'PATCH /api/v2/task-results/:id/callback': 'Answer a run task (the task service’s callback)',
  'GET /.well-known/terraform.json': 'Service discovery for the terraform CLI',
  'GET /.well-known/jwks': 'The signing keys (JWKS)',
  'GET /.well-known/openid-configuration': 'OpenID discovery document pointing at the signing keys',
  'GET /api/terraform/motd': 'The message of the day the CLI prints',
  'GET /api/registry/v1/modules/:namespace': 'List a namespace’s modules (registry protocol)',
  'GET /api/registry/v1/modules/:namespace/:name': 'List a module’s providers (registry protocol)',
  'GET /api/registry/v1/modules/:namespace/:name/:provider': 'Show a module’s latest version (registry protocol)',
  'GET /api/registry/v1/modules/:namespace/:name/:provider/:version': 'Show a module version (registry protocol)',
  'GET /api/registry/public/v1/modules/:namespace/:name/:provider/versions': 'List a module’s versions (public registry)',
  'GET /api/registry/public/v1/modules/:namespace/:name/:provider': 'Show a module’s latest version (public registry)',
  'GET /api/registry/public/v1/modules/:namespace/:name/:provider/:version': 'Show a module version (public registry)',
  'POST /keys/:name/create': 'Create a key (cloud provider C stand-in)',
  'GET /keys/:name': 'Show a key (cloud provider C stand-in)',
  'GET /keys/:name/:version': 'Show a key version (cloud provider C stand-in)',
  'POST /keys/:name/:version/sign': 'Sign with a key version (cloud provider C stand-in)',
  'POST /api/v2/users/:userId/authentication-tokens': 'Create a token for a user',
  'POST /api/v2/teams/:teamId/authentication-tokens': 'Create a token for a team',
  'POST /api/v2/teams/:teamId/authentication-token': 'Replace a team’s token (the legacy single token)',
  'GET /api/v2/teams/:teamId/authentication-token': 'Show a team’s token (the legacy single token)',
  'DELETE /api/v2/teams/:teamId/authentication-token': 'Revoke a team’s token (the legacy single token)',
  'POST /api/v2/organizations/:organization/authentication-token': 'Replace an organization’s token',
  'GET /api/v2/organizations/:organization/authentication-token': 'Show an organization’s token',
  'DELETE /api/v2/organizations/:organization/authentication-token': 'Revoke an organization’s token',
  'POST /api/v2/organizations/:org/organization-memberships': 'Invite a user to an organization',
  'GET /api/v2/configuration-versions/:id/download': 'Download a configuration version’s archive',
  'POST /api/v2/organizations/:org/registry-modules/vcs': 'Publish a module from a VCS repository',
  'GET /api/v2/registry-modules/show/:org/:name/:provider': 'Show a registry module (older path)',
  'POST /api/v2/registry-modules/:org/:name/:provider/versions': 'Create a module version (older path)',
  'GET /api/v2/organizations/:org/registry-modules/:registry/:namespace/:name/:provider/version': 'Show a module version',
  'DELETE /api/v2/organizations/:org/registry-modules/:registry/:namespace/:name': 'Delete a module with all its providers',
  'DELETE /api/v2/organizations/:org/registry-modules/:registry/:namespace/:name/:provider/:version': 'Delete a module version',
  'POST /api/v2/registry-modules/actions/delete/:org/:name': 'Delete a module with all its providers (older path)',
  'POST /api/v2/registry-modules/actions/delete/:org/:name/:provider': 'Delete a module (older path)',
  'POST /api/v2/registry-modules/actions/delete/:org/:name/:provider/:version': 'Delete a module version (older path)',
  'POST /api/v2/admin/sms-settings/verify': 'Send a test SMS',
  'PATCH /api/v2/admin/sms-settings/verify': 'Send a test SMS',
  'POST /api/v2/admin/twilio-settings/verify': 'Send a test SMS through the Twilio settings',
  'PATCH /api/v2/admin/twilio-settings/verify': 'Send a test SMS through the Twilio settings',
  'POST /api/v2/admin/saml-settings/actions/revoke-old-certificate': 'Revoke the old SAML certificate',
  'POST /api/v2/admin/oidc-settings/actions/rotate-key': 'Rotate the signing key',
  'POST /api/v2/admin/oidc-settings/actions/trim-key': 'Remove all signing keys but the current one',
  'POST /api/v2/state-versions/:id/actions/soft_delete_backing_data': "Soft delete a state version's backing data",
  'POST /api/v2/state-versions/:id/actions/restore_backing_data': "Restore a state version's soft-deleted backing data",
  'POST /api/v2/state-versions/:id/actions/permanently_delete_backing_data': "Permanently delete a state version's backing data",
  'POST /api/v2/configuration-versions/:id/actions/soft_delete_backing_data': "Soft delete a configuration version's backing data",
  'POST /api/v2/configuration-versions/:id/actions/restore_backing_data': "Restore a configuration version's soft-deleted backing data",
  'POST /api/v2/configuration-versions/:id/actions/permanently_delete_backing_data':
    "Permanently delete a configuration version's backing data",
  'POST /api/v2/admin/organizations/:org/subscription': 'Set an organization’s subscription (administrator)',
  'GET /api/registry/v1/modules/': 'List modules (registry protocol)',
  'GET /api/registry/v1/modules/search': 'Search modules (registry protocol)',
  'GET /api/registry/v1/modules/:namespace/:name/:provider/versions': 'List a module’s versions (registry protocol)',
  'GET /api/registry/v1/modules/:namespace/:name/:provider/:version/download': 'Download a module version (registry protocol)',
  'GET /api/registry/v1/modules/:namespace/:name/:provider/download': 'Download a module’s latest version (registry protocol)',
  'GET /api/registry/archives/:token/:file': 'Download a module archive (signed link)',
  'PUT /api/registry/uploads/v1/object/:id': 'Upload a module version’s archive (one-time link)',
  'POST /api/registry/webhooks/:id/:secret': 'Publish a new version from a VCS push',
  'PUT /_archivist/v1/object/upload/:token': 'Upload a pending state version’s state (one-time link)',
  'GET /_archivist/v1/object/download/:token': 'Download a state version’s state (signed link)',
  'PUT /_archivist/v1/runs/upload/:token': 'Upload a configuration version’s archive (one-time link)',
  'GET /_archivist/v1/runs/logs/:token': 'Stream a plan or apply log (signed link)',
  'GET /': 'Redirect to the API reference',
  'GET /_emulator/health': 'Health: 200 once migrations and the seed are done',
  'GET /_emulator/info': 'Name, version, dialect, edition, store and emulated time',
  'POST /_emulator/reset': 'Reset to the seed state',
  'GET /_emulator/openapi.json': 'This document',
  'GET /_emulator/docs': 'The browsable API reference',
  'GET /_emulator/docs/static/:file': 'The reference page’s assets',
  'GET /_emulator/clock': 'Show the emulated time and the next scheduled work',
  'POST /_emulator/clock': 'Move the emulated clock, running what falls due',
  'PATCH /_emulator/organizations/:org': 'Set organization settings the API has no endpoint for',
  'POST /_emulator/organization-memberships/:id/accept': 'Accept an invitation as the invited user',
  'POST /_emulator/organizations/:org/workspaces/bulk': 'Create many workspaces at once',
  'POST /_emulator/organizations/:org/teams/bulk': 'Create many teams at once',
  'POST /_emulator/organizations/:org/run-tasks/bulk': 'Create many run tasks at once',
  'POST /_emulator/organizations/:org/memberships/bulk': 'Create many active members at once',
  'POST /_emulator/run-tasks/:id/trigger': 'Deliver a run task’s payload and show the answer',
  'GET /_emulator/run-tasks/:id/deliveries': 'List a run task’s deliveries',
  'GET /_emulator/outbox': 'List the test mails and SMS sent',
  'POST /_emulator/runs/:id/advance': 'Advance a manually paced run to its next stop',
  'GET /_emulator/runs/:id': 'Show where a run is waiting',
  'PUT /_emulator/runs/progression': 'Set how runs progress (immediate, clock, manual)',
  'POST /_emulator/workload-identity-tokens': 'Mint a workload identity token for a workspace, without a run',
  'POST /_emulator/cloud-a-kms': 'Cloud provider A’s key service (stand-in)',
  'POST /_emulator/cloud-c-keyvault/:tenant/oauth2/v2.0/token': 'Cloud provider C’s token service (stand-in)',
};

/** Irregular plurals of the API's resource names; the rest lose their final `s`. */
const SINGULAR: Record<string, string> = {
  applies: 'apply',
  vars: 'variable',
  varsets: 'variable set',
  tasks: 'run task',
  'authentication-tokens': 'token',
  'registry-modules': 'registry module',
  'ssh-keys': 'SSH key',
  'ssh-key': 'SSH key',
  'organization-memberships': 'membership',
  account: 'account',
  admin: 'settings',
};

const words = (segment: string) => segment.replace(/[-_]/g, ' ');
const singular = (segment: string) => SINGULAR[segment] ?? words(segment.replace(/ies$/, 'y').replace(/s$/, ''));
const PLURAL: Record<string, string> = { vars: 'variables', varsets: 'variable sets', 'ssh-keys': 'SSH keys', 'ssh-key': 'SSH key' };
const plural = (segment: string) => PLURAL[segment] ?? words(segment);
const article = (noun: string) => (/^(?!us)([aeiou]|ssh)/i.test(noun) ? `an ${noun}` : `a ${noun}`);
const capital = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/**
 * A summary from the method and the path: `GET /workspaces/:id` → "Show a workspace",
 * `POST /organizations/:org/workspaces` → "Create a workspace in an organization",
 * `POST /runs/:id/actions/apply` → "Apply a run".
 */
export function summaryOf(method: string, url: string): string {
  const hand = SUMMARIES[`${method} ${url}`];
  if (hand) return hand;
  const admin = url.startsWith('/api/v2/admin/');
  const path = url.replace(/^\/api\/v2\/(admin\/)?/, '/').replace(/^\/_emulator\//, '/');
  const derived = derivedSummary(method, path);
  return admin ? `${derived} (administrator)` : derived;
}

function derivedSummary(method: string, path: string): string {
  const segments = path.split('/').filter((segment) => segment !== '');
  const last = segments.at(-1) ?? '';
  const endsWithId = isParameter(last);
  const named = segments.filter((segment) => !isParameter(segment));
  const actionAt = named.indexOf('actions');
  if (actionAt >= 0) {
    const owner = named[actionAt - 1] ?? 'resource';
    return capital(`${words(named[actionAt + 1] ?? 'act on')} ${article(singular(owner))}`);
  }
  const relationshipAt = named.indexOf('relationships');
  if (relationshipAt >= 0) {
    const owner = article(singular(named[relationshipAt - 1] ?? 'resource'));
    const related = plural(named[relationshipAt + 1] ?? 'relationship');
    const one = endsWithId ? 'one of the ' : '';
    const verb = {
      GET: endsWithId ? `Show one of the ${related} of` : `List the ${related} of`,
      POST: `Add ${related} to`,
      PATCH: endsWithId ? `Update one of the ${related} of` : undefined,
      DELETE: `Remove ${one}${related} from`,
    }[method];
    return capital(verb ? `${verb} ${owner}` : `Replace the ${related} of ${owner}`);
  }
  const resource = named.at(-1) ?? '';
  const parent = named.length > 1 ? named.at(-2) : undefined;
  // Settings documents are one per server: shown and updated, never listed.
  if (resource.endsWith('-settings') && !endsWithId) return capital(`${method === 'GET' ? 'Show' : 'Update'} the ${words(resource)}`);
  if (endsWithId || !parent) {
    const verbs: Record<string, string> = { GET: 'Show', PATCH: 'Update', PUT: 'Replace', DELETE: 'Delete', POST: 'Create' };
    if (!endsWithId && method === 'GET') return capital(`List ${plural(resource)}`);
    return capital(`${verbs[method] ?? method} ${article(singular(resource))}`);
  }
  const of = article(singular(parent));
  if (method === 'GET')
    return capital(resource.endsWith('s') ? `List the ${plural(resource)} of ${of}` : `Show the ${plural(resource)} of ${of}`);
  if (method === 'POST') return capital(`Create ${article(singular(resource))} in ${of}`);
  const verbs: Record<string, string> = { PATCH: 'Update', PUT: 'Replace', DELETE: 'Delete' };
  return capital(`${verbs[method] ?? method} the ${plural(resource)} of ${of}`);
}

const RESOURCE_OBJECT: Json = {
  type: 'object',
  required: ['type'],
  properties: {
    id: { type: 'string' },
    type: { type: 'string' },
    attributes: { type: 'object' },
    relationships: { type: 'object' },
    links: { type: 'object' },
    meta: { type: 'object' },
  },
};

/** A JSON:API document: one resource (or null) or a list, what it includes, links and meta. */
const JSONAPI_DOCUMENT: Json = {
  type: 'object',
  properties: {
    data: { anyOf: [RESOURCE_OBJECT, { type: 'array', items: RESOURCE_OBJECT }, { type: 'null' }] },
    included: { type: 'array', items: RESOURCE_OBJECT },
    links: { type: 'object' },
    meta: { type: 'object', description: 'pagination, status counts' },
  },
};

const JSONAPI_ERRORS: Json = {
  description: 'a JSON:API error document: `errors[]` with `status`, `title`, `detail` and `source.pointer` or `source.parameter`',
  type: 'object',
  required: ['errors'],
  properties: {
    errors: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          status: { type: 'string' },
          title: { type: 'string' },
          detail: { type: 'string' },
          source: { type: 'object', properties: { pointer: { type: 'string' }, parameter: { type: 'string' } } },
        },
      },
    },
  },
};

const NO_BODY: Json = { description: 'done, no body', type: 'null' };

/** Marks the generic answer of an `/api/v2` route that declares no response schema of its own. */
export const UNDECLARED = 'x-undeclared-response';

/**
 * Responses for the document. An `/api/v2` route declares its own successes (`schema.response`,
 * see platform/jsonapi/responses.ts); the JSON:API error document is added for 4XX. A route that
 * declares none gets a generic JSON:API document, marked `x-undeclared-response`.
 * `{"error": …}` on the control plane, JSON or bytes elsewhere.
 */
export function responsesOf(method: string, url: string, declared?: Json): Json {
  if (url.startsWith('/api/v2')) {
    if (declared) return { ...declared, '4XX': JSONAPI_ERRORS };
    const success =
      method === 'POST'
        ? { '201': { ...JSONAPI_DOCUMENT, description: 'the created resource (actions answer 200, 202 or 204)', [UNDECLARED]: true } }
        : method === 'DELETE'
          ? { '204': { ...NO_BODY, [UNDECLARED]: true } }
          : { '200': { ...JSONAPI_DOCUMENT, description: 'a JSON:API document', [UNDECLARED]: true } };
    return { ...success, '4XX': JSONAPI_ERRORS };
  }
  if (declared) return declared;
  if (url.startsWith('/_emulator')) {
    return {
      '2XX': { description: 'JSON (the README’s control plane table describes each answer)', type: 'object' },
      '4XX': { description: 'an error', type: 'object', properties: { error: { type: 'string' } } },
    };
  }
  return {
    '2XX': { description: 'JSON, a file or a redirect, as the README’s section describes', type: 'object' },
    '4XX': { description: 'an error document', type: 'object' },
  };
}
