import { randomUUID } from 'node:crypto';
import { sha256Hex } from '../../core/crypto.js';
import { ApiError, badRequest, notFound } from '../../core/errors.js';
import type { SecretsContext } from '../context.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../framework/types.js';
import { existingRole, ROLE_NAME_FIELD, type RoleEntry } from './approle-role.js';
import { addressInCidrs, cidrsWithin, parseCidrs } from './cidr.js';
import { loginResponse } from './login.js';

/** A secret ID as stored, under the SHA-256 of its value (the value itself is never kept). */
interface SecretIdEntry {
  accessor: string;
  numUses: number;
  ttl: number;
  creationTime: string;
  /** Null when the secret ID never expires. */
  expirationTime: string | null;
  lastUpdatedTime: string;
  metadata: Record<string, string>;
  cidrList: string[];
  tokenBoundCidrs: string[];
}

const ZERO_TIME = '0001-01-01T00:00:00Z';

const GENERATE_FIELDS: Record<string, FieldSpec> = {
  ...ROLE_NAME_FIELD,
  metadata: { type: 'any', description: 'String metadata: an object, or that object as a JSON string (as clients send it).' },
  cidr_list: { type: 'commaStringSlice', description: "Addresses logins with this secret ID may come from (within the role's)." },
  token_bound_cidrs: { type: 'commaStringSlice', description: 'Addresses the issued tokens may be used from.' },
  num_uses: { type: 'int', description: "Logins this secret ID allows; at most the role's secret_id_num_uses." },
  ttl: { type: 'duration', description: "Lifetime of this secret ID; at most the role's secret_id_ttl." },
};
const SECRET_ID_FIELD: Record<string, FieldSpec> = { ...ROLE_NAME_FIELD, secret_id: { type: 'string', description: 'The secret ID.' } };
const ACCESSOR_FIELD: Record<string, FieldSpec> = {
  ...ROLE_NAME_FIELD,
  secret_id_accessor: { type: 'string', description: 'Accessor of the secret ID.' },
};

const secretIdKey = (role: string, secretId: string) => `secret_id/${role}/${sha256Hex(secretId)}`;
const accessorKey = (role: string, accessor: string) => `accessor/${role}/${accessor}`;

function parseMetadata(value: unknown): Record<string, string> {
  let parsed = value;
  if (typeof value === 'string') {
    if (value.trim() === '') return {};
    try {
      parsed = JSON.parse(value);
    } catch {
      throw badRequest('failed to parse metadata: invalid JSON');
    }
  }
  if (parsed === undefined || parsed === null) return {};
  const entries = typeof parsed === 'object' && !Array.isArray(parsed) ? Object.entries(parsed) : undefined;
  if (!entries?.every(([, entry]) => typeof entry === 'string')) throw badRequest('failed to parse metadata: values must be strings');
  return Object.fromEntries(entries);
}

/** Secret IDs and their accessors, with expiry read from the clock (an expired one is gone). */
class SecretIds {
  constructor(
    private readonly context: SecretsContext,
    private readonly request: HandlerRequest,
    readonly role: RoleEntry,
  ) {}

  private live(key: string): SecretIdEntry | undefined {
    const entry = this.request.storage.get<SecretIdEntry>(key);
    if (!entry) return undefined;
    if (entry.expirationTime && Date.parse(entry.expirationTime) <= this.context.clock.nowMs()) {
      this.remove(key, entry);
      return undefined;
    }
    return entry;
  }

  bySecret(secretId: string): { key: string; entry: SecretIdEntry } | undefined {
    const key = secretIdKey(this.role.name, secretId);
    const entry = this.live(key);
    return entry && { key, entry };
  }

  byAccessor(accessor: string): { key: string; entry: SecretIdEntry } | undefined {
    const hash = this.request.storage.get<string>(accessorKey(this.role.name, accessor));
    if (hash === undefined) return undefined;
    const key = `secret_id/${this.role.name}/${hash}`;
    const entry = this.live(key);
    return entry && { key, entry };
  }

  remove(key: string, entry: SecretIdEntry): void {
    this.request.storage.delete(key);
    this.request.storage.delete(accessorKey(this.role.name, entry.accessor));
  }

  accessors(): string[] {
    const prefix = `secret_id/${this.role.name}/`;
    return this.request.storage
      .list(prefix)
      .map((hash) => this.live(`${prefix}${hash}`)?.accessor)
      .filter((accessor): accessor is string => accessor !== undefined)
      .sort();
  }

  create(secretId: string): LogicalResponse {
    const { fields } = this.request;
    const { role } = this;
    const key = secretIdKey(role.name, secretId);
    if (this.live(key)) throw badRequest('SecretID is already registered');
    const numUses = fields.has('num_uses') ? fields.get<number>('num_uses') : role.secretIdNumUses;
    if (numUses < 0) throw badRequest('num_uses cannot be negative');
    if (role.secretIdNumUses > 0 && (numUses === 0 || numUses > role.secretIdNumUses)) {
      throw badRequest("num_uses cannot be higher than the role's secret_id_num_uses");
    }
    const ttl = fields.has('ttl') ? fields.get<number>('ttl') : role.secretIdTtl;
    if (role.secretIdTtl > 0 && (ttl === 0 || ttl > role.secretIdTtl)) {
      throw badRequest("ttl cannot be longer than the role's secret_id_ttl");
    }
    const listField = (name: string) => parseCidrs(fields.has(name) ? fields.get<string[]>(name) : [], name);
    const cidrList = listField('cidr_list');
    if (!cidrsWithin(cidrList, role.secretIdBoundCidrs)) {
      throw badRequest(
        'failed to verify the CIDR restrictions set on the secret ID: CIDR blocks on the secret ID must be within those of the role',
      );
    }
    const tokenBoundCidrs = listField('token_bound_cidrs');
    if (!cidrsWithin(tokenBoundCidrs, role.settings.boundCidrs)) {
      throw badRequest("failed to verify the token bound CIDR restrictions: they must be within the role's token_bound_cidrs");
    }
    const now = this.context.clock.nowMs();
    const entry: SecretIdEntry = {
      accessor: randomUUID(),
      numUses,
      ttl,
      creationTime: new Date(now).toISOString(),
      expirationTime: ttl > 0 ? new Date(now + ttl * 1000).toISOString() : null,
      lastUpdatedTime: new Date(now).toISOString(),
      metadata: parseMetadata(fields.get('metadata')),
      cidrList,
      tokenBoundCidrs,
    };
    this.request.storage.put(key, entry);
    this.request.storage.put(accessorKey(role.name, entry.accessor), key.slice(key.lastIndexOf('/') + 1));
    this.context.scheduler.poke();
    return { data: { secret_id: secretId, secret_id_accessor: entry.accessor, secret_id_ttl: ttl, secret_id_num_uses: numUses } };
  }
}

function secretIdWire(entry: SecretIdEntry): Record<string, unknown> {
  return {
    cidr_list: entry.cidrList,
    creation_time: entry.creationTime,
    expiration_time: entry.expirationTime ?? ZERO_TIME,
    last_updated_time: entry.lastUpdatedTime,
    metadata: entry.metadata,
    secret_id_accessor: entry.accessor,
    secret_id_num_uses: entry.numUses,
    secret_id_ttl: entry.ttl,
    token_bound_cidrs: entry.tokenBoundCidrs,
  };
}

const missingAccessor = (accessor: string) =>
  new ApiError(404, 'accessor not found', { messages: [`failed to find accessor entry for secret_id_accessor: "${accessor}"`] });

/** `role/:role_name/secret-id…` and `custom-secret-id`. */
export function secretIdPaths(context: SecretsContext): PathSpec[] {
  const ids = (request: HandlerRequest) => new SecretIds(context, request, existingRole(request));
  const requiredSecretId = (request: HandlerRequest) => {
    const value = (request.fields.get<string | undefined>('secret_id') ?? '').trim();
    if (value === '') throw badRequest('missing secret_id');
    return value;
  };
  const requiredAccessor = (request: HandlerRequest) => {
    const value = (request.fields.get<string | undefined>('secret_id_accessor') ?? '').trim();
    if (value === '') throw badRequest('missing secret_id_accessor');
    return value;
  };
  const destroy = (request: HandlerRequest) => {
    const store = ids(request);
    const found = store.bySecret(requiredSecretId(request));
    if (found) store.remove(found.key, found.entry);
    return undefined;
  };
  const destroyByAccessor = (request: HandlerRequest) => {
    const store = ids(request);
    const accessor = requiredAccessor(request);
    const found = store.byAccessor(accessor);
    if (!found) throw missingAccessor(accessor);
    store.remove(found.key, found.entry);
    return undefined;
  };
  return [
    {
      pattern: 'role/:role_name/secret-id',
      summary: 'Generate a secret ID (POST) or list the accessors of live ones (LIST).',
      fields: GENERATE_FIELDS,
      operations: {
        update: (request) => ids(request).create(randomUUID()),
        list: (request) => {
          const keys = ids(request).accessors();
          if (keys.length === 0) throw notFound();
          return { data: { keys } };
        },
      },
    },
    {
      pattern: 'role/:role_name/custom-secret-id',
      summary: 'Register a secret ID chosen by the caller.',
      fields: { ...GENERATE_FIELDS, secret_id: { type: 'string', description: 'The secret ID to register.' } },
      operations: { update: (request) => ids(request).create(requiredSecretId(request)) },
    },
    {
      pattern: 'role/:role_name/secret-id/lookup',
      summary: "A secret ID's properties (204 when it does not exist).",
      fields: SECRET_ID_FIELD,
      operations: {
        update: (request) => {
          const found = ids(request).bySecret(requiredSecretId(request));
          return found ? { data: secretIdWire(found.entry) } : undefined;
        },
      },
    },
    {
      pattern: 'role/:role_name/secret-id/destroy',
      summary: 'Destroy a secret ID.',
      fields: SECRET_ID_FIELD,
      operations: { update: destroy, delete: destroy },
    },
    {
      pattern: 'role/:role_name/secret-id-accessor/lookup',
      summary: "A secret ID's properties, by accessor.",
      fields: ACCESSOR_FIELD,
      operations: {
        update: (request) => {
          const accessor = requiredAccessor(request);
          const found = ids(request).byAccessor(accessor);
          if (!found) throw missingAccessor(accessor);
          return { data: secretIdWire(found.entry) };
        },
      },
    },
    {
      pattern: 'role/:role_name/secret-id-accessor/destroy',
      summary: 'Destroy a secret ID, by accessor.',
      fields: ACCESSOR_FIELD,
      operations: { update: destroyByAccessor, delete: destroyByAccessor },
    },
  ];
}

const INVALID = () => badRequest('invalid role or secret ID');

function checkAddress(request: HandlerRequest, blocks: string[], what: string): void {
  if (blocks.length > 0 && !addressInCidrs(request.clientAddress, blocks)) {
    throw badRequest(`source address "${request.clientAddress ?? ''}" unauthorized by CIDR restrictions on the ${what}`);
  }
}

/** `login`: the role ID names the role; its secret ID (when bound) is checked, counted and used up. */
export function approleLogin(context: SecretsContext, request: HandlerRequest): LogicalResponse {
  const roleId = (request.fields.get<string | undefined>('role_id') ?? '').trim();
  if (roleId === '') throw badRequest('missing role_id');
  // Read only here: the shared, frozen values skip an AES-GCM open per entry on every login, and a
  // write to either entry seals new text, so a changed role is never read stale.
  const name = request.storage.getShared<string>(`role_id/${roleId}`);
  const role = name === undefined ? undefined : request.storage.getShared<RoleEntry>(`role/${name}`);
  if (!role) throw INVALID();
  let metadata: Record<string, string> = {};
  let tokenBoundCidrs = role.settings.boundCidrs;
  if (role.bindSecretId) {
    const secretId = (request.fields.get<string | undefined>('secret_id') ?? '').trim();
    if (secretId === '') throw badRequest('missing secret_id');
    const store = new SecretIds(context, request, role);
    const found = store.bySecret(secretId);
    if (!found) throw INVALID();
    const { key, entry } = found;
    checkAddress(request, entry.cidrList, 'secret ID');
    checkAddress(request, role.secretIdBoundCidrs, 'role');
    // A use is taken only by a login that gets this far; the last one removes the secret ID.
    if (entry.numUses === 1) store.remove(key, entry);
    else if (entry.numUses > 1) {
      request.storage.put(key, { ...entry, numUses: entry.numUses - 1, lastUpdatedTime: context.clock.now().toISOString() });
    }
    metadata = { ...entry.metadata };
    if (entry.tokenBoundCidrs.length > 0) tokenBoundCidrs = entry.tokenBoundCidrs;
  } else {
    checkAddress(request, role.secretIdBoundCidrs, 'role');
  }
  metadata['role_name'] = role.name;
  // The alias is the role id, with the token's metadata, as the real method reports it.
  return loginResponse(context, request, {
    settings: { ...role.settings, boundCidrs: tokenBoundCidrs },
    meta: metadata,
    alias: { name: role.roleId, metadata: { ...metadata } },
  });
}
