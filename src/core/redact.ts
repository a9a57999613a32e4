/**
 * Query parameters and body members whose values are secrets (tokens, passwords, keys, PINs) by
 * the shape of their names: the one rule the logs and the request journal share.
 */
const SECRET_NAME = /token|secret|password|passwd|credential|signature|hmac|api[-_]?key|private[-_]?key|^key$|^sig$|^pin$|^jwt$/i;

/** Whether a query parameter or body member with this name carries a secret. */
export const isSecretName = (name: string): boolean => SECRET_NAME.test(name);

export const REDACTED = '[redacted]';

/**
 * Paths whose next segment is itself a credential: self-authorizing upload and download links
 * (state objects, registry archives and uploads).
 */
const LINK_PREFIXES = [
  '/_archivist/v1/object/upload/',
  '/_archivist/v1/object/download/',
  '/api/registry/uploads/v1/object/',
  '/api/registry/archives/',
];

/**
 * Each link prefix as its non-empty segments (`['_archivist', 'v1', 'object', 'upload']`) and how
 * many segments after it come before the credential. A registry webhook's address is
 * `/api/registry/webhooks/<module id>/<secret>`: its credential is the second segment after.
 */
const LINK_SEGMENTS: { parts: string[]; skip: number }[] = [
  ...LINK_PREFIXES.map((prefix) => ({ parts: prefix.split('/').filter((part) => part !== ''), skip: 0 })),
  { parts: ['api', 'registry', 'webhooks'], skip: 1 },
];

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Index (in `path.split('/')`) of the credential in a self-authorizing link, found by the
 * link's shape rather than by a matched route: the first non-empty segment after a link prefix,
 * with empty segments skipped, so `//_archivist//v1/object/upload/<secret>` and
 * `/api//registry/…` are found as well as the plain spelling. Segments are compared decoded, so
 * `%6fbject` is `object`.
 */
function linkSecret(segments: string[]): number | undefined {
  const present = segments.flatMap((segment, index) => (segment === '' ? [] : [{ index, text: decodeSegment(segment) }]));
  const link = LINK_SEGMENTS.find(({ parts }) => parts.every((part, index) => present[index]?.text === part));
  return link ? present[link.parts.length + link.skip]?.index : undefined;
}

/**
 * Indexes (in `path.split('/')`) of the segments that are credentials: those the matched route
 * names as secret (`secretParams` of its `config`), and the credential of a self-authorizing
 * link by its shape (see {@link linkSecret}), whether a route matched or not.
 */
function secretSegments(segments: string[], route: RouteSecrets | undefined): number[] {
  const found: number[] = [];
  if (route?.pattern && route.secretParams?.length) {
    const names = route.pattern.split('/');
    found.push(...route.secretParams.map((name) => names.indexOf(`:${name}`)).filter((index) => index !== -1));
  }
  const link = linkSecret(segments);
  if (link !== undefined) found.push(link);
  return found;
}

/** `path` with its credential segments replaced. */
function redactPath(path: string, route: RouteSecrets | undefined): string {
  const segments = path.split('/');
  const secret = secretSegments(segments, route);
  if (secret.length === 0) return path;
  for (const index of secret) if (index < segments.length) segments[index] = REDACTED;
  return segments.join('/');
}

/** The route a request matched: its pattern (`/api/registry/webhooks/:id/:secret`) and which parameters are secrets. */
export interface RouteSecrets {
  pattern?: string | undefined;
  secretParams?: readonly string[] | undefined;
}

/**
 * The URL as it may be logged: the credential segments of the path (by the matched route, see
 * {@link secretSegments}), and the value of every
 * query parameter whose name says it carries a secret (`?token=…`, `?client_token=…`,
 * `?password=…`), are replaced; everything else is kept as sent.
 */
export function redactUrl(url: string, route?: RouteSecrets): string {
  const query = url.indexOf('?');
  if (query === -1) return redactPath(url, route);
  const pairs = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      if (equals === -1) return pair;
      let name = pair.slice(0, equals);
      try {
        name = decodeURIComponent(name.replace(/\+/g, ' '));
      } catch {
        // A malformed escape is still a name to check as written.
      }
      return isSecretName(name) ? `${pair.slice(0, equals)}=${REDACTED}` : pair;
    });
  return `${redactPath(url.slice(0, query), route)}?${pairs.join('&')}`;
}

/**
 * Members of a secrets-API body that describe a secret rather than carry one, at the one place
 * they are looked for: the top level of a request body, and the top level of a response's `data`.
 * Deeper down a name says nothing (`{"data":{"name":"S3CRET"}}` is a KV write of a secret named
 * `name`), so nothing below those levels is kept as text.
 */
const SECRETS_DESCRIPTIVE = new Set([
  'lease_id',
  'lease_duration',
  'renewable',
  'accessor',
  'policies',
  'token_policies',
  'identity_policies',
  'token_type',
  'type',
  'path',
  'description',
  'ttl',
  'max_ttl',
  'period',
  'version',
  'versions',
  'current_version',
  'oldest_version',
  'max_versions',
  'cas',
  'created_time',
  'deletion_time',
  'destroyed',
  'keys',
  'key_info',
  'plugin_name',
  'allowed_roles',
  'db_name',
  'role_name',
  'name',
  'common_name',
  'alt_names',
  'ip_sans',
  'serial_number',
  'expiration',
  'certificate',
  'issuing_ca',
  'ca_chain',
  'key_type',
  'key_bits',
  'format',
  'display_name',
  'entity_id',
  'orphan',
  'num_uses',
  'creation_ttl',
  'explicit_max_ttl',
  'issue_time',
  'expire_time',
]);

/** The response envelope's own members; `data`, `auth` and `wrap_info` have rules of their own. */
const ENVELOPE = new Set(['request_id', 'lease_id', 'lease_duration', 'renewable', 'warnings', 'errors', 'mount_type']);
/** What `auth` shows of a token: everything but the token (`client_token`). */
const AUTH = new Set([
  'accessor',
  'policies',
  'token_policies',
  'identity_policies',
  'lease_duration',
  'renewable',
  'entity_id',
  'token_type',
  'orphan',
  'num_uses',
]);
/** What `wrap_info` shows: everything but the wrapping token. */
const WRAP_INFO = new Set(['ttl', 'creation_time', 'creation_path', 'wrapped_accessor']);

/**
 * Which rules a body is redacted by: `platform` bodies keep everything but members named like a
 * secret and the `value` of anything marked `sensitive`; `secrets` bodies keep only descriptive
 * members where they are looked for (see {@link SECRETS_DESCRIPTIVE}) and no other text.
 */
export type BodyRules = 'platform' | 'secrets';

/** Deeper than this, a body is not walked further (nothing real nests so deep). */
const MAX_DEPTH = 32;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isScalar = (value: unknown) => value === null || typeof value !== 'object';

/** Every string replaced, the shape and other values kept (numbers, booleans: counts, times, flags). */
function withoutText(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return REDACTED;
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => withoutText(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([name, member]) => [name, withoutText(member, depth + 1)]));
}

/** A descriptive member's value: kept when it is a scalar or a list of scalars (a name, a list of keys); else its text goes. */
const keptValue = (value: unknown): unknown =>
  isScalar(value) || (Array.isArray(value) && value.every(isScalar)) ? value : withoutText(value);

/** The members of `record` named in `plain` kept (see {@link keptValue}); every other member's text redacted. */
function keepOnly(record: Record<string, unknown>, plain: ReadonlySet<string>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(record).map(([name, member]) => [name, plain.has(name) ? keptValue(member) : withoutText(member)]),
  );
}

/**
 * A secrets-API body as it may be shown: descriptive members only where they are looked for. A
 * response (it has `request_id`) keeps its envelope, `auth` and `wrap_info` but their tokens, and
 * the top level of `data`; a request keeps the top level of its own members.
 */
function redactSecretsBody(value: unknown): unknown {
  if (!isRecord(value)) return withoutText(value);
  if (!('request_id' in value)) return keepOnly(value, SECRETS_DESCRIPTIVE);
  const copy: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) {
    if (name === 'data' && isRecord(member)) copy[name] = keepOnly(member, SECRETS_DESCRIPTIVE);
    else if (name === 'auth' && isRecord(member)) copy[name] = keepOnly(member, AUTH);
    else if (name === 'wrap_info' && isRecord(member)) copy[name] = keepOnly(member, WRAP_INFO);
    else copy[name] = ENVELOPE.has(name) ? keptValue(member) : withoutText(member);
  }
  return copy;
}

/** A copy of a parsed JSON body with every secret replaced by `[redacted]`, by the same name rules as URLs. */
export function redactBody(value: unknown, rules: BodyRules, depth = 0): unknown {
  if (rules === 'secrets') return redactSecretsBody(value);
  if (value === null || typeof value !== 'object') return value;
  if (depth > MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactBody(item, rules, depth + 1));
  const record = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(record)) {
    if (member !== null && (isSecretName(name) || (name === 'value' && record['sensitive'] === true))) copy[name] = REDACTED;
    else if (name === 'attributes' && hidesValue(record) && isRecord(member) && member['value'] != null)
      copy[name] = { ...(redactBody(member, rules, depth + 1) as Record<string, unknown>), value: REDACTED };
    else copy[name] = redactBody(member, rules, depth + 1);
  }
  return copy;
}

/**
 * A variable (`"type": "vars"`) whose attributes do not say it is not sensitive: an update of a
 * sensitive variable may send only its new value, so the value is hidden unless `sensitive` is
 * `false` in the same attributes (as every answer about a variable says).
 */
const hidesValue = (record: Record<string, unknown>): boolean =>
  record['type'] === 'vars' && isRecord(record['attributes']) && record['attributes']['sensitive'] !== false;

/**
 * What the journal shows for a body of a route that carries secrets in its bodies (KV, cubbyhole,
 * transit key export, wrapping, state): nothing of it, not even its redacted shape.
 */
export const SECRET_BODY = '[not kept: this route carries secrets]';

const SECRET_BODIES = Symbol('understudy.secretBodies');

/** Marks a request (its Fastify request object) as one whose bodies the journal never keeps. */
export function markSecretBodies(request: object): void {
  (request as { [SECRET_BODIES]?: true })[SECRET_BODIES] = true;
}

export function hasSecretBodies(request: object): boolean {
  return (request as { [SECRET_BODIES]?: true })[SECRET_BODIES] === true;
}
