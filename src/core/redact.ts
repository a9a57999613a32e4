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

const LINK_SEGMENTS = LINK_PREFIXES.map((prefix) => prefix.split('/').slice(0, -1));

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * Indexes (in `path.split('/')`) of the segments that are credentials: those the matched route
 * names as secret (`secretParams` of its `config`), or, when no route matched, the segment after
 * a self-authorizing link's prefix. Segments are compared decoded, so `%6fbject` is `object`.
 */
function secretSegments(segments: string[], route: RouteSecrets | undefined): number[] {
  if (route?.pattern && route.secretParams?.length) {
    const names = route.pattern.split('/');
    return route.secretParams.map((name) => names.indexOf(`:${name}`)).filter((index) => index !== -1);
  }
  const decoded = segments.map(decodeSegment);
  const prefix = LINK_SEGMENTS.find((parts) => parts.every((part, index) => decoded[index] === part));
  return prefix && segments.length > prefix.length ? [prefix.length] : [];
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
 * Members of secrets-API bodies that describe a secret rather than carry one. Everything else a
 * secrets body holds as text (values written to a store, generated credentials, key material) is
 * a secret until shown otherwise, so the journal keeps only these as sent.
 */
const SECRETS_API_PLAIN = new Set([
  'request_id',
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
  'warnings',
  'errors',
  'mount_type',
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

/**
 * Which rules a body is redacted by: `platform` bodies keep everything but members named like a
 * secret and the `value` of anything marked `sensitive`; `secrets` bodies keep only the plain
 * members above and what is not text.
 */
export type BodyRules = 'platform' | 'secrets';

/** Deeper than this, a body is not walked further (nothing real nests so deep). */
const MAX_DEPTH = 32;

/** A copy of a parsed JSON body with every secret replaced by `[redacted]`, by the same name rules as URLs. */
export function redactBody(value: unknown, rules: BodyRules, depth = 0): unknown {
  if (value === null || typeof value !== 'object') return rules === 'secrets' && typeof value === 'string' ? REDACTED : value;
  if (depth > MAX_DEPTH) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactBody(item, rules, depth + 1));
  const record = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(record)) {
    if (rules === 'secrets' && SECRETS_API_PLAIN.has(name)) copy[name] = member;
    else if (member !== null && (isSecretName(name) || (name === 'value' && record['sensitive'] === true))) copy[name] = REDACTED;
    else copy[name] = redactBody(member, rules, depth + 1);
  }
  return copy;
}
