import type { DueSource } from '../../core/scheduler.js';
import type { TokenEntry } from '../tokens/token-store.js';
import type { TokenSettings } from '../auth/token-settings.js';
import type { FieldData } from './fields.js';
import type { MountStorage } from '../storage/mount-storage.js';
import type { secretLeases } from '../../store/tables.js';

/** A lease as stored; engines get it back when it is renewed or revoked. */
export type LeaseRecord = typeof secretLeases.$inferSelect;

/** The logical operations every secrets path is written in terms of (`patch`: a JSON merge patch). */
export type Operation = 'read' | 'list' | 'create' | 'update' | 'delete' | 'patch';

/** `kvPairs`: an object of strings (numbers and booleans are converted); `map`: any object. */
export type FieldType = 'string' | 'bool' | 'int' | 'duration' | 'commaStringSlice' | 'stringSlice' | 'map' | 'kvPairs' | 'any';

export interface FieldSpec {
  type: FieldType;
  description: string;
  default?: unknown;
  required?: boolean;
  /** The type the API reference shows when `type` is loosened to `any` so a handler converts the value itself. */
  documentedAs?: FieldType;
  /** A value the server accepts, shown by the API reference in example request bodies. */
  example?: unknown;
}

export interface MountInfo {
  path: string;
  type: string;
  uuid: string;
  accessor: string;
  config: Record<string, unknown>;
  /** Engine options as `sys/mounts` shows them (the key/value engine's `version`). */
  options?: Record<string, string> | null;
}

/** What a handler sees: the operation, its path captures and typed fields, the caller, its mount's storage. */
export interface HandlerRequest {
  operation: Operation;
  /** Path relative to the mount, e.g. `roles/web`. */
  path: string;
  params: Record<string, string>;
  fields: FieldData;
  /** The raw request data (body or query), for engines that store arbitrary keys. */
  data: Record<string, unknown>;
  token: TokenEntry | null;
  /** The client's address, for CIDR bindings. */
  clientAddress?: string | undefined;
  /** The TLS client certificate (DER) of the connection, if one was presented. */
  clientCertificate?: Buffer | undefined;
  /** Seconds of the wrapped answer the caller asked for (`X-Vault-Wrap-TTL`); 0 for none. */
  wrapTtl: number;
  /** Scheme and host the request came to, e.g. `http://127.0.0.1:8200`. */
  origin?: string | undefined;
  mount: MountInfo;
  storage: MountStorage;
}

export interface LeaseInfo {
  leaseId: string;
  durationSeconds: number;
  renewable: boolean;
}

export interface AuthBlock {
  client_token: string;
  accessor: string;
  policies: string[];
  token_policies: string[];
  /** The policies the token's entity and its groups give (logins only, when there are some). */
  identity_policies?: string[];
  metadata: Record<string, string> | null;
  lease_duration: number;
  renewable: boolean;
  entity_id: string;
  token_type: string;
  orphan: boolean;
  mfa_requirement: null;
  num_uses: number;
}

/** The `wrap_info` of a wrapped answer, with the real service's field names. */
export interface WrapInfo {
  token: string;
  accessor: string;
  ttl: number;
  creation_time: string;
  creation_path: string;
  /** The accessor of the token inside, when the wrapped answer created one. */
  wrapped_accessor?: string;
}

/** A bare body (PKI's CA, health): written as is, without the standard envelope. */
export interface RawBody {
  status: number;
  contentType: string;
  body: string | Buffer;
}

export interface LogicalResponse {
  data?: Record<string, unknown> | null;
  warnings?: string[];
  lease?: LeaseInfo;
  auth?: AuthBlock;
  raw?: RawBody;
  /** Also copy each `data` key to the top level, as the real service does for some `sys/` routes. */
  dataAtTopLevel?: boolean;
  /** The envelope with another status (the key/value engine's 404 that still carries metadata). */
  status?: number;
  /** Set by the router when the answer was wrapped: it goes out as `wrap_info` (and warnings) only. */
  wrapInfo?: WrapInfo;
  /**
   * A handler's own request to be wrapped (`sys/wrapping/rewrap`): a new wrapping token for this
   * TTL and creation path holding this already-serialised answer.
   */
  rewrap?: { ttl: number; creationPath: string; storedResponse: string };
}

/** A handler returns nothing for "204, no body". */
export type Handler = (request: HandlerRequest) => LogicalResponse | undefined | Promise<LogicalResponse | undefined>;

/**
 * One entry of a path table: pattern, fields, operations and existence check together, so an
 * engine reads as data. Patterns are segments: literals, `:name` (one segment), `:name*` (the rest).
 */
export interface PathSpec {
  pattern: string;
  summary: string;
  fields?: Record<string, FieldSpec>;
  /** Decides create vs update for POST/PUT; without one every write is an update. */
  existenceCheck?: (request: HandlerRequest) => boolean | Promise<boolean>;
  operations: Partial<Record<Operation, Handler>>;
  /** Operations that skip token and policy checks (health, PKI CA reads). */
  unauthenticated?: readonly Operation[];
  /** Root-protected: the caller also needs `sudo` on the path. */
  sudo?: boolean;
  /**
   * Runs before the token and policy checks, with the raw client token (the wrapping paths check
   * the wrapping token first, so a bad one is a 400 rather than a 403).
   */
  beforeAuth?: (request: HandlerRequest, clientToken: string | undefined) => void;
  /**
   * Answered outside the real service's logical layer (health, seal status), which never wraps
   * them; they carry nothing secret, so a wrap header there is ignored as it is for real.
   */
  neverWrapped?: boolean;
}

/** What an auth method sees of a request when asked which role it would log in to. */
export interface RoleLookup {
  data: Record<string, unknown>;
  storage: MountStorage;
  clientCertificate?: Buffer | undefined;
}

export interface Backend {
  type: string;
  paths: readonly PathSpec[];
  /**
   * Undoes what a lease stands for (drops a database user, revokes a certificate), from the
   * lease's `revokeData`. Throwing leaves the lease pending; it is retried with backoff.
   */
  revokeLease?: (lease: LeaseRecord, storage: MountStorage) => void | Promise<void>;
  /** Runs before a renewal is granted (renew statements, up to `expiresAt`); throwing refuses it with a 400. */
  renewLease?: (lease: LeaseRecord, storage: MountStorage, expiresAt: Date) => void | Promise<void>;
  /**
   * Auth methods: the current token settings for a token one of their logins issued, read at
   * renewal; throwing refuses the renewal (the user or role is gone or its policies changed).
   */
  renewLogin?: (token: TokenEntry, storage: MountStorage) => TokenSettings;
  /**
   * Auth methods with roles: the role a login body names (approle's role ID, the JWT `role`, the
   * matched certificate entry), for role-based quotas; undefined when it names none that exists.
   */
  resolveRole?: (login: RoleLookup) => string | undefined;
  /** Timed work the engine owns (static-role rotations), registered with the scheduler at start. */
  dueSources?: readonly DueSource[];
  /** Releases what the engine holds open (connection pools) when the server closes. */
  close?: () => Promise<void>;
  /** Releases what the engine holds open for one mount, once that mount is disabled. */
  unmounted?: (mountUuid: string) => Promise<void>;
}
