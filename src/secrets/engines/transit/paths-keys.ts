import { badRequest, notFound } from '../../../core/errors.js';
import type { Clock } from '../../../core/clock.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { decodeWithMessage } from './encoding.js';
import { HMAC_MAX_KEY_BYTES, HMAC_MIN_KEY_BYTES, isKeyType, KEY_TYPES, supportsDerivation, type KeyTypeName } from './key-types.js';
import { newVersion, policyKey, readPolicy, writePolicy, type KeyPolicy } from './policy.js';
import { keyView } from './view.js';

const HOUR_SECONDS = 3600;

export const nameOf = (request: HandlerRequest) => request.params['name'] ?? '';

export interface KeyDependencies {
  clock: Clock;
  /** Called after a write that may move the next automatic rotation. */
  changed(): void;
}

const CREATE_FIELDS: Record<string, FieldSpec> = {
  type: { type: 'string', description: 'The key type.', default: 'aes256-gcm96' },
  derived: { type: 'bool', description: 'Derive a key per context.', default: false },
  convergent_encryption: { type: 'bool', description: 'Same plaintext and context give the same ciphertext.', default: false },
  exportable: { type: 'bool', description: 'Allow the key material to be exported.', default: false },
  allow_plaintext_backup: { type: 'bool', description: 'Allow a plaintext backup.', default: false },
  context: { type: 'string', description: 'Base64 context: a derived ed25519 key read shows its public key.', default: '' },
  auto_rotate_period: { type: 'duration', description: 'Rotate automatically this often (0 disables; at least 1h).', default: 0 },
  key_size: { type: 'int', description: 'HMAC keys: the key length in bytes (32 to 512).', default: 0 },
};

/** The options a new key is made with; checked before any key material is generated. */
export interface NewKeyOptions {
  type: KeyTypeName;
  derived: boolean;
  convergent: boolean;
  exportable: boolean;
  allowPlaintextBackup: boolean;
  autoRotatePeriod: number;
  keySize: number;
}

/** The checks the real service's key manager makes when it creates a key of `type`. */
export function checkNewKey(options: NewKeyOptions): void {
  if (options.convergent && !options.derived) throw badRequest('convergent encryption requires derivation to be enabled');
  const family = KEY_TYPES[options.type].family;
  if ((options.derived || options.convergent) && (family === 'ecdsa' || family === 'rsa' || family === 'hmac')) {
    throw badRequest(`key derivation and convergent encryption not supported for keys of type ${options.type}`);
  }
  if (options.convergent && family === 'ed25519') throw badRequest(`convergent encryption not supported for keys of type ${options.type}`);
}

/** Generates version 1 and stores the key, unless one appeared meanwhile (then that one wins). */
export async function createKey(
  request: HandlerRequest,
  name: string,
  options: NewKeyOptions,
  now: Date,
): Promise<{ policy: KeyPolicy; created: boolean }> {
  checkNewKey(options);
  const first = await newVersion(options.type, options.keySize, now, options.convergent);
  const existing = readPolicy(request.storage, name);
  if (existing) return { policy: existing, created: false };
  const policy: KeyPolicy = {
    name,
    type: options.type,
    derived: options.derived,
    convergent_encryption: options.convergent,
    exportable: options.exportable,
    deletion_allowed: false,
    allow_plaintext_backup: options.allowPlaintextBackup,
    min_decryption_version: 1,
    min_encryption_version: 0,
    min_available_version: 0,
    latest_version: 1,
    auto_rotate_period: options.autoRotatePeriod,
    key_size: options.type === 'hmac' ? options.keySize : 0,
    keys: { '1': first },
  };
  writePolicy(request.storage, policy);
  return { policy, created: true };
}

function checkAutoRotate(seconds: number): void {
  if (seconds !== 0 && seconds < HOUR_SECONDS) throw badRequest('auto rotate period must be 0 to disable or at least an hour');
}

async function writeKey(request: HandlerRequest, deps: KeyDependencies): Promise<LogicalResponse> {
  const { fields } = request;
  const name = nameOf(request);
  const typeName = fields.get<string>('type');
  const autoRotatePeriod = fields.get<number>('auto_rotate_period');
  checkAutoRotate(autoRotatePeriod);
  const derived = fields.get<boolean>('derived');
  const convergent = fields.get<boolean>('convergent_encryption');
  if (!derived && convergent) throw badRequest('convergent encryption requires derivation to be enabled');
  if (!isKeyType(typeName)) throw badRequest(`unknown key type ${typeName}`);
  let keySize = fields.get<number>('key_size');
  if (keySize !== 0) {
    if (typeName !== 'hmac') throw badRequest(`key_size is not valid for algorithm ${typeName}`);
    if (keySize < HMAC_MIN_KEY_BYTES || keySize > HMAC_MAX_KEY_BYTES) throw badRequest(`invalid key_size ${keySize}`);
  } else if (typeName === 'hmac') keySize = HMAC_MIN_KEY_BYTES;
  const existing = readPolicy(request.storage, name);
  if (existing) return { data: keyView(existing), warnings: [`key ${name} already existed`] };
  const { policy, created } = await createKey(
    request,
    name,
    {
      type: typeName,
      derived,
      convergent,
      exportable: fields.get<boolean>('exportable'),
      allowPlaintextBackup: fields.get<boolean>('allow_plaintext_backup'),
      autoRotatePeriod,
      keySize,
    },
    deps.clock.now(),
  );
  deps.changed();
  return created ? { data: keyView(policy) } : { data: keyView(policy), warnings: [`key ${name} already existed`] };
}

function readKey(request: HandlerRequest): LogicalResponse {
  const policy = readPolicy(request.storage, nameOf(request));
  if (!policy) throw notFound();
  const contextText = request.fields.get<string>('context');
  const context = contextText === '' ? undefined : decodeWithMessage(contextText, 'failed to base64-decode context');
  if (context && supportsDerivation(policy.type)) return { data: keyView(policy, context) };
  return { data: keyView(policy) };
}

function deleteKey(request: HandlerRequest, deps: KeyDependencies): undefined {
  const name = nameOf(request);
  const policy = readPolicy(request.storage, name);
  if (!policy) throw badRequest(`error deleting policy ${name}: could not delete key; not found`);
  if (!policy.deletion_allowed) throw badRequest(`error deleting policy ${name}: deletion is not allowed for this key`);
  request.storage.delete(policyKey(name));
  deps.changed();
  return undefined;
}

/** `config/keys`: mount-wide key settings; `disable_upsert` stops `encrypt/` creating keys. */
export const upsertDisabled = (request: HandlerRequest) =>
  request.storage.get<{ disable_upsert: boolean }>('config/keys')?.disable_upsert ?? false;

export function keyPaths(deps: KeyDependencies): PathSpec[] {
  return [
    {
      pattern: 'config/keys',
      summary: 'Mount-wide key settings: disable_upsert.',
      fields: { disable_upsert: { type: 'bool', description: 'Refuse to create keys on encrypt.', default: false } },
      operations: {
        read: (request) => ({ data: { disable_upsert: upsertDisabled(request) } }),
        update: (request) => {
          const disable_upsert = request.fields.has('disable_upsert')
            ? request.fields.get<boolean>('disable_upsert')
            : upsertDisabled(request);
          request.storage.put('config/keys', { disable_upsert });
          return { data: { disable_upsert } };
        },
      },
    },
    {
      pattern: 'keys',
      summary: 'List the named keys.',
      operations: {
        list: (request) => {
          const keys = request.storage.list('policy/').filter((key) => !key.endsWith('/'));
          // An empty list is a 404, as the real service answers a list with no keys.
          if (keys.length === 0) throw notFound();
          return { data: { keys } };
        },
      },
    },
    {
      pattern: 'keys/:name',
      summary: 'Create, read or delete a named key.',
      fields: CREATE_FIELDS,
      operations: {
        update: (request) => writeKey(request, deps),
        read: readKey,
        delete: (request) => deleteKey(request, deps),
      },
    },
  ];
}
