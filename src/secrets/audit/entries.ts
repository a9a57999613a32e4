import type { AuthBlock, LogicalResponse, MountInfo, Operation } from '../framework/types.js';
import type { TokenEntry } from '../tokens/token-store.js';

/**
 * The audit record's members as JSON text, field for field as the real service writes them (its
 * Go structs with `omitempty`: empty strings, zeros, false, and empty lists or maps are left out).
 * Written straight to text: a record is built twice a request for every device.
 */

/** What hashing needs to know about each value: a token is always HMAC'd, an accessor when asked, data unless raw. */
export interface Hashers {
  token(value: string): string;
  accessor(value: string): string;
  /**
   * The value as JSON text, its strings hashed (undefined where JSON leaves it out). `tokens`: the
   * tokens this request carried or issued, which even raw data never shows.
   */
  data(value: unknown, tokens: readonly string[]): string | undefined;
}

/**
 * `text` as one flat string. Text built with `+` is a tree of pieces that V8 walks each time the
 * text is copied (into a longer line, or encoded for the file); text kept and written again (a
 * caller's `auth`, the members both records share) is copied once instead. Converting a string to a
 * number flattens it in place: the same way pino's `flatstr` does.
 */
export function flat(text: string): string {
  // The number is not wanted: converting is what flattens.
  void Number(text);
  return text;
}

/** Whether a plain object has no member (without listing its keys: two records a request). */
function hasNoMember(object: object): boolean {
  for (const key in object) if (Object.hasOwn(object, key)) return false;
  return true;
}

/** One JSON object's members, each left out when Go's `omitempty` would. Names are plain literals. */
class Members {
  private text = '';

  /** A member already written as JSON (or a run of members, for `fragment`). */
  json(name: string, json: string | undefined): this {
    if (json !== undefined) this.text += `${this.text === '' ? '' : ','}"${name}":${json}`;
    return this;
  }

  fragment(members: string): this {
    if (members !== '') this.text += `${this.text === '' ? '' : ','}${members}`;
    return this;
  }

  string(name: string, value: string | null | undefined): this {
    return value ? this.json(name, JSON.stringify(value)) : this;
  }

  number(name: string, value: number | null | undefined): this {
    return value === undefined || value === null || value === 0 ? this : this.json(name, JSON.stringify(value));
  }

  list(name: string, value: readonly unknown[] | null | undefined): this {
    return value && value.length > 0 ? this.json(name, JSON.stringify(value)) : this;
  }

  object(name: string, value: object | null | undefined): this {
    return value && !hasNoMember(value) ? this.json(name, JSON.stringify(value)) : this;
  }

  /** The members written so far, without braces. */
  get members(): string {
    return this.text;
  }

  toString(): string {
    return `{${this.text}}`;
  }
}

/** RFC 3339 without fractions, as the real service prints a token's issue time. */
const rfc3339 = (date: Date) => date.toISOString().replace(/\.\d+Z$/, 'Z');

/** The caller's token, as the `auth` member of both records; a request without one still has `token_type`. */
export function callerAuth(token: TokenEntry | null, hash: Hashers): string {
  if (!token) return '{"token_type":"default"}';
  return new Members()
    .string('client_token', token.secret === undefined ? undefined : hash.token(token.secret))
    .string('accessor', hash.accessor(token.accessor))
    .string('display_name', token.displayName)
    .list('policies', token.policies)
    .list('token_policies', token.policies)
    .object('metadata', token.meta)
    .number('num_uses', token.numUses > 0 ? token.numUses : 0)
    .string('token_type', 'service')
    .number('token_ttl', token.ttlSeconds)
    .string('token_issue_time', rfc3339(token.createdAt))
    .toString();
}

const sameList = (a: readonly string[] | null, b: readonly string[] | null) =>
  a === b || (a !== null && b !== null && a.length === b.length && a.every((item, index) => item === b[index]));

/** Same members in the same order (the order is what the record shows). */
function sameMeta(a: Record<string, string> | null, b: Record<string, string> | null): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const keys = Object.keys(a);
  const others = Object.keys(b);
  return keys.length === others.length && keys.every((key, index) => key === others[index] && a[key] === b[key]);
}

/** Whether every field `callerAuth` reads is the same in both: then so is its text. */
function sameCaller(a: TokenEntry, b: TokenEntry): boolean {
  return (
    a.secret === b.secret &&
    a.accessor === b.accessor &&
    a.displayName === b.displayName &&
    a.numUses === b.numUses &&
    a.ttlSeconds === b.ttlSeconds &&
    a.createdAt.getTime() === b.createdAt.getTime() &&
    sameList(a.policies, b.policies) &&
    sameMeta(a.meta ?? null, b.meta ?? null)
  );
}

/**
 * `callerAuth` remembered per token for the last thousand tokens of one device: a client sends
 * the same token on every request. The text is served again only when every field it is made of
 * is unchanged (a use taken, a renewal, new metadata build it anew).
 */
export function rememberedCallerAuth(hash: Hashers, size = 1024): (token: TokenEntry | null) => string {
  const known = new Map<string, { token: TokenEntry; text: string }>();
  return (token) => {
    if (!token) return callerAuth(token, hash);
    const remembered = known.get(token.id);
    if (remembered && sameCaller(remembered.token, token)) return remembered.text;
    if (!remembered && known.size >= size) known.clear();
    const text = flat(callerAuth(token, hash));
    known.set(token.id, { token, text });
    return text;
  };
}

/** A token a response hands out (a login, `auth/token/create`). */
function issuedAuth(auth: AuthBlock, hash: Hashers): string {
  return new Members()
    .string('client_token', hash.token(auth.client_token))
    .string('accessor', hash.accessor(auth.accessor))
    .list('policies', auth.policies)
    .list('token_policies', auth.token_policies)
    .object('metadata', auth.metadata)
    .number('num_uses', auth.num_uses)
    .string('entity_id', auth.entity_id)
    .string('token_type', auth.token_type)
    .number('token_ttl', auth.lease_duration)
    .toString();
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

/** The mount members both records open with (the same for every device: nothing in them is hashed). */
export function mountMembers(mount: MountInfo | undefined): string {
  if (!mount) return '';
  return new Members()
    .string('mount_point', mount.path)
    .string('mount_type', mount.type)
    .string('mount_accessor', mount.accessor)
    .string('mount_class', mount.path.startsWith('auth/') ? 'auth' : 'secret').members;
}

export function requestMember(facts: RequestFacts, mount: string, hash: Hashers): string {
  return new Members()
    .string('id', facts.id)
    .fragment(requestAfterId(facts, mount, hash))
    .toString();
}

/** The request member's members after its `id`, without braces. */
function requestAfterId(facts: RequestFacts, mount: string, hash: Hashers): string {
  return new Members()
    .string('operation', facts.operation)
    .fragment(mount)
    .string('client_token', facts.clientToken === undefined ? undefined : hash.token(facts.clientToken))
    .string('client_token_accessor', facts.token ? hash.accessor(facts.token.accessor) : undefined)
    .json('namespace', '{"id":"root"}')
    .string('path', facts.path)
    .json('data', hasNoMember(facts.data) ? undefined : hash.data(facts.data, tokensOf(facts)))
    .string('remote_address', facts.remoteAddress).members;
}

/**
 * `requestMember` of one device, its members after the `id` remembered for the last request
 * without data: a client repeats the same read, and only the id differs. Served again only when
 * everything they are made of is the same (a request with data is written anew: its data would
 * have to be walked to be compared).
 */
export function rememberedRequestMember(hash: Hashers): (facts: RequestFacts, mount: string) => string {
  /** What the remembered text was made of (never the request's data or token entry), and the text. */
  let last:
    | { operation: Operation; clientToken?: string; accessor?: string; path: string; address?: string; mount: string; text: string }
    | undefined;
  return (facts, mount) => {
    if (!hasNoMember(facts.data)) return requestMember(facts, mount, hash);
    const accessor = facts.token?.accessor;
    if (
      last === undefined ||
      last.mount !== mount ||
      last.accessor !== accessor ||
      last.operation !== facts.operation ||
      last.clientToken !== facts.clientToken ||
      last.path !== facts.path ||
      last.address !== facts.remoteAddress
    ) {
      const { operation, clientToken, path, remoteAddress: address } = facts;
      last = { operation, clientToken, accessor, path, address, mount, text: flat(requestAfterId(facts, mount, hash)) };
    }
    // A UUID: nothing in it to escape.
    return `{"id":"${facts.id}",${last.text}}`;
  };
}

/** A bare body (PKI's CA, health) is recorded as the real service's raw-response keys. */
function responseData(response: LogicalResponse): Record<string, unknown> | undefined {
  if (response.raw) {
    const body = typeof response.raw.body === 'string' ? response.raw.body : response.raw.body.toString('base64');
    return { http_content_type: response.raw.contentType, http_raw_body: body, http_status_code: response.raw.status };
  }
  return response.data ?? undefined;
}

export function responseMember(response: LogicalResponse | undefined, facts: RequestFacts, mount: string, hash: Hashers): string {
  const data = response && responseData(response);
  const tokens = response?.auth ? [...tokensOf(facts), response.auth.client_token] : tokensOf(facts);
  return new Members()
    .fragment(mount)
    .json('auth', response?.auth ? issuedAuth(response.auth, hash) : undefined)
    .json('secret', response?.lease?.leaseId ? `{"lease_id":${JSON.stringify(response.lease.leaseId)}}` : undefined)
    .json('data', data && !hasNoMember(data) ? hash.data(data, tokens) : undefined)
    .list('warnings', response?.warnings)
    .toString();
}
