import type { AuthBlock, LogicalResponse, MountInfo, Operation } from '../framework/types.js';
import type { TokenEntry } from '../tokens/token-store.js';

/**
 * The audit record's shape, field for field as the real service writes it (its Go structs with
 * `omitempty`: empty strings, zeros, false, and empty lists or maps are left out).
 */

/** What hashing needs to know about each value: a token is always HMAC'd, an accessor when asked, data unless raw. */
export interface Hashers {
  token(value: string): string;
  accessor(value: string): string;
  /** `tokens`: the tokens this request carried or issued, which even raw data never shows. */
  data(value: unknown, tokens: readonly string[]): unknown;
}

type Json = Record<string, unknown>;

/** Whether a plain object has no member (without listing its keys: two records a request). */
function hasNoMember(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return false;
  return true;
}

/** Go's `omitempty`: keeps only the members that are not empty. Records are built from plain objects only. */
function compact(object: Json): Json {
  const out: Json = {};
  for (const key in object) {
    const value = object[key];
    if (value === undefined || value === null || value === '' || value === 0 || value === false) continue;
    if (Array.isArray(value) ? value.length === 0 : typeof value === 'object' && hasNoMember(value)) continue;
    out[key] = value;
  }
  return out;
}

/** RFC 3339 without fractions, as the real service prints a token's issue time. */
const rfc3339 = (date: Date) => date.toISOString().replace(/\.\d+Z$/, 'Z');

/** The caller's token, as the `auth` member of both records; a request without one still has `token_type`. */
export function callerAuth(token: TokenEntry | null, hash: Hashers): Json {
  if (!token) return { token_type: 'default' };
  return compact({
    client_token: token.secret === undefined ? undefined : hash.token(token.secret),
    accessor: hash.accessor(token.accessor),
    display_name: token.displayName,
    policies: token.policies,
    token_policies: token.policies,
    metadata: token.meta ?? undefined,
    num_uses: token.numUses > 0 ? token.numUses : 0,
    token_type: 'service',
    token_ttl: token.ttlSeconds,
    token_issue_time: rfc3339(token.createdAt),
  });
}

/** A token a response hands out (a login, `auth/token/create`). */
function issuedAuth(auth: AuthBlock, hash: Hashers): Json {
  return compact({
    client_token: hash.token(auth.client_token),
    accessor: hash.accessor(auth.accessor),
    policies: auth.policies,
    token_policies: auth.token_policies,
    metadata: auth.metadata ?? undefined,
    num_uses: auth.num_uses,
    entity_id: auth.entity_id,
    token_type: auth.token_type,
    token_ttl: auth.lease_duration,
  });
}

export interface RequestFacts {
  id: string;
  operation: Operation;
  /** Full path after `/v1/`. */
  path: string;
  data: Record<string, unknown>;
  clientToken: string | undefined;
  token: TokenEntry | null;
  mount: MountInfo | undefined;
  remoteAddress: string | undefined;
}

const tokensOf = (facts: RequestFacts): string[] => (facts.clientToken === undefined ? [] : [facts.clientToken]);

const mountClass = (mount: MountInfo) => (mount.path.startsWith('auth/') ? 'auth' : 'secret');

export function requestMember(facts: RequestFacts, hash: Hashers): Json {
  return compact({
    id: facts.id,
    operation: facts.operation,
    mount_point: facts.mount?.path,
    mount_type: facts.mount?.type,
    mount_accessor: facts.mount?.accessor,
    mount_class: facts.mount && mountClass(facts.mount),
    client_token: facts.clientToken === undefined ? undefined : hash.token(facts.clientToken),
    client_token_accessor: facts.token ? hash.accessor(facts.token.accessor) : undefined,
    namespace: { id: 'root' },
    path: facts.path,
    data: Object.keys(facts.data).length > 0 ? hash.data(facts.data, tokensOf(facts)) : undefined,
    remote_address: facts.remoteAddress,
  });
}

/** A bare body (PKI's CA, health) is recorded as the real service's raw-response keys. */
function responseData(response: LogicalResponse): Record<string, unknown> | undefined {
  if (response.raw) {
    const body = typeof response.raw.body === 'string' ? response.raw.body : response.raw.body.toString('base64');
    return { http_content_type: response.raw.contentType, http_raw_body: body, http_status_code: response.raw.status };
  }
  return response.data ?? undefined;
}

export function responseMember(response: LogicalResponse | undefined, facts: RequestFacts, hash: Hashers): Json {
  const { mount } = facts;
  const data = response && responseData(response);
  const tokens = response?.auth ? [...tokensOf(facts), response.auth.client_token] : tokensOf(facts);
  return compact({
    mount_point: mount?.path,
    mount_type: mount?.type,
    mount_accessor: mount?.accessor,
    mount_class: mount && mountClass(mount),
    auth: response?.auth ? issuedAuth(response.auth, hash) : undefined,
    secret: response?.lease?.leaseId ? { lease_id: response.lease.leaseId } : undefined,
    data: data && Object.keys(data).length > 0 ? hash.data(data, tokens) : undefined,
    warnings: response?.warnings,
  });
}
