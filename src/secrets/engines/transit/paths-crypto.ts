import { randomBytes } from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { attempt, batchItems, batchResponse, batchResults, BATCH_FIELDS, single, stringOf, type BatchItem } from './batch.js';
import { decryptOffLoop, encrypt, encryptionVersion, type CipherInput } from './ciphertext.js';
import { decodeStdBase64, decodeWithMessage } from './encoding.js';
import { isKeyType, supportsAssociatedData } from './key-types.js';
import { createKey, nameOf, upsertDisabled, type KeyDependencies } from './paths-keys.js';
import { policyKey, usePolicy, type KeyPolicy } from './policy.js';
import { attemptAsync, mapInSlices } from './slices.js';

const CIPHER_FIELDS: Record<string, FieldSpec> = {
  context: { type: 'string', description: 'Base64 context for derived keys.', default: '' },
  nonce: { type: 'string', description: 'Base64 nonce (only version-1 convergent keys take one).', default: '' },
  associated_data: { type: 'string', description: 'Base64 associated data for AEAD keys.', default: '' },
  key_version: { type: 'int', description: 'The version to encrypt with (0: the latest).', default: 0 },
  ...BATCH_FIELDS,
};

const ENCRYPT_FIELDS: Record<string, FieldSpec> = {
  ...CIPHER_FIELDS,
  plaintext: { type: 'string', description: 'Base64 plaintext.' },
  type: { type: 'string', description: 'The type of a key created by this request.', default: 'aes256-gcm96' },
  convergent_encryption: { type: 'bool', description: 'Whether a key created by this request is convergent.', default: false },
};

/** The single-request fields as one batch item. */
function singleItem(request: HandlerRequest, names: string[]): BatchItem {
  const item: BatchItem = {};
  for (const name of names) if (request.fields.has(name)) item[name] = request.fields.get<string | number>(name);
  return item;
}

function contextSetting(items: BatchItem[]): boolean {
  const set = stringOf(items[0] ?? {}, 'context') !== '';
  if (items.some((item) => (stringOf(item, 'context') !== '') !== set)) {
    throw badRequest('context should be set either in all the request blocks or in none');
  }
  return set;
}

/** The decoded context and associated data of one item, with the real checks for each. */
function cipherInput(policy: KeyPolicy, item: BatchItem, index: number): CipherInput {
  const associated = stringOf(item, 'associated_data');
  if (associated !== '' && !supportsAssociatedData(policy.type)) {
    throw badRequest(`'[${index}].associated_data' provided for non-AEAD cipher suite ${policy.type}`);
  }
  const context = stringOf(item, 'context');
  return {
    context: context === '' ? NO_CONTEXT : decodeStdBase64(context),
    associatedData: associated === '' ? undefined : decodeStdBase64(associated),
  };
}

/** The absent context, shared: empty, so nothing can change it, and one Buffer fewer per item. */
const NO_CONTEXT = Buffer.alloc(0);

function checkNonce(item: BatchItem): void {
  // Understudy's convergent keys use the version-3 scheme, which takes no caller nonce.
  if (stringOf(item, 'nonce') !== '') throw badRequest('provided nonce not allowed for this key');
}

function encryptItem(policy: KeyPolicy, item: BatchItem, index: number) {
  const plaintext = decodeStdBase64(stringOf(item, 'plaintext'));
  const input = cipherInput(policy, item, index);
  checkNonce(item);
  const version = encryptionVersion(policy, typeof item['key_version'] === 'number' ? item['key_version'] : 0);
  return { ciphertext: encrypt(policy, version, plaintext, input), key_version: version };
}

/** The key for an encryption; a create (no key yet) makes one, as the real `encrypt` upserts. */
async function keyForEncrypt(
  request: HandlerRequest,
  deps: KeyDependencies,
  contextSet: boolean,
  existing: KeyPolicy | undefined,
): Promise<KeyPolicy> {
  const name = nameOf(request);
  if (existing) return existing;
  if (request.operation !== 'create' || upsertDisabled(request)) throw badRequest('encryption key not found');
  const convergent = request.fields.get<boolean>('convergent_encryption');
  if (convergent && !contextSet) throw badRequest('convergent encryption requires derivation to be enabled, so context is required');
  const type = request.fields.get<string>('type');
  if (type.startsWith('ecdsa-') && isKeyType(type)) throw badRequest(`key type ${type} not supported for this operation`);
  if (!isKeyType(type) || !['aes128-gcm96', 'aes256-gcm96', 'chacha20-poly1305', 'rsa-2048', 'rsa-3072', 'rsa-4096'].includes(type)) {
    throw badRequest(`unknown key type ${type}`);
  }
  const options = {
    type,
    derived: contextSet,
    convergent,
    exportable: false,
    allowPlaintextBackup: false,
    autoRotatePeriod: 0,
    keySize: 0,
  };
  const { policy } = await createKey(request, name, options, deps.clock.now());
  deps.changed();
  return policy;
}

async function encryptPath(request: HandlerRequest, deps: KeyDependencies): Promise<LogicalResponse> {
  const batch = batchItems(request, 'plaintext');
  if (!batch && !request.fields.has('plaintext')) throw badRequest('missing plaintext to encrypt');
  const items = batch ?? [singleItem(request, ['plaintext', 'context', 'nonce', 'key_version', 'associated_data'])];
  const contextSet = contextSetting(items);
  const existing = usePolicy(request.storage, nameOf(request));
  const existedBefore = existing !== undefined;
  if (!existedBefore) {
    // A request none of whose items can be encrypted creates no key (the real service would).
    const decodable = items.map((item) => attempt(() => [stringOf(item, 'plaintext'), stringOf(item, 'context')].map(decodeStdBase64)));
    const firstFailure = decodable.find((result) => 'error' in result);
    if (firstFailure && decodable.every((result) => 'error' in result)) {
      if (!batch) single(firstFailure);
      return withBatch(request, items, decodable);
    }
  }
  const policy = await keyForEncrypt(request, deps, contextSet, existing);
  const results = await mapInSlices(items, (item, index) => attempt(() => encryptItem(policy, item, index)));
  const warnings =
    request.operation === 'create' && existedBefore
      ? ['Attempted creation of the key during the encrypt operation, but it was created beforehand']
      : [];
  if (!batch) return { data: single(results[0] ?? { error: 'missing plaintext to encrypt' }), ...(warnings.length ? { warnings } : {}) };
  return withBatch(request, items, results, warnings);
}

function withBatch(
  request: HandlerRequest,
  items: BatchItem[],
  results: ({ value: Record<string, unknown> } | { error: string })[],
  warnings: string[] = [],
  /** Members a failed item still carries (the real decrypt item always has `plaintext`). */
  onError: Record<string, unknown> = {},
): LogicalResponse {
  const batch_results = batchResults(items, results, onError);
  const failed = results.some((result) => 'error' in result);
  const succeeded = results.some((result) => !('error' in result));
  const response = batchResponse(request, { batch_results }, failed, succeeded);
  const allWarnings = [...warnings, ...(response.warnings ?? [])];
  return { ...response, ...(allWarnings.length ? { warnings: allWarnings } : {}) };
}

async function decryptItem(policy: KeyPolicy, item: BatchItem, index: number) {
  const ciphertext = stringOf(item, 'ciphertext');
  if (ciphertext === '') throw badRequest('missing ciphertext to decrypt');
  return { plaintext: (await decryptOffLoop(policy, ciphertext, cipherInput(policy, item, index))).toString('base64') };
}

async function decryptPath(request: HandlerRequest): Promise<LogicalResponse> {
  const batch = batchItems(request, 'ciphertext');
  if (!batch && (request.fields.get<string>('ciphertext') ?? '') === '') throw badRequest('missing ciphertext to decrypt');
  const items = batch ?? [singleItem(request, ['ciphertext', 'context', 'nonce', 'associated_data'])];
  contextSetting(items);
  const policy = usePolicy(request.storage, nameOf(request));
  if (!policy) throw badRequest('encryption key not found');
  const results = await mapInSlices(items, (item, index) => attemptAsync(() => decryptItem(policy, item, index)));
  if (!batch) return { data: single(results[0] ?? { error: 'missing ciphertext to decrypt' }) };
  return withBatch(request, items, results, [], { plaintext: '' });
}

async function rewrapPath(request: HandlerRequest): Promise<LogicalResponse> {
  const batch = batchItems(request, 'ciphertext');
  if (!batch && (request.fields.get<string>('ciphertext') ?? '') === '') throw badRequest('missing ciphertext to decrypt');
  const items = batch ?? [singleItem(request, ['ciphertext', 'context', 'nonce', 'key_version'])];
  contextSetting(items);
  const policy = usePolicy(request.storage, nameOf(request));
  if (!policy) throw badRequest('encryption key not found');
  const results = await mapInSlices(items, (item, index) =>
    attemptAsync(async () => {
      const ciphertext = stringOf(item, 'ciphertext');
      if (ciphertext === '') throw badRequest('missing ciphertext to decrypt');
      const input = cipherInput(policy, item, index);
      const plaintext = await decryptOffLoop(policy, ciphertext, input);
      const version = encryptionVersion(policy, typeof item['key_version'] === 'number' ? item['key_version'] : 0);
      return { ciphertext: encrypt(policy, version, plaintext, input), key_version: version };
    }),
  );
  if (!batch) return { data: single(results[0] ?? { error: 'missing ciphertext to decrypt' }) };
  return withBatch(request, items, results);
}

const DATAKEY_BYTES: Record<number, number> = { 128: 16, 256: 32, 512: 64 };

function datakeyPath(request: HandlerRequest): LogicalResponse {
  const kind = request.params['plaintext'] ?? '';
  if (kind !== 'plaintext' && kind !== 'wrapped') throw badRequest("Invalid path, must be 'plaintext' or 'wrapped'");
  const { fields } = request;
  const context = decodeWithMessage(fields.get<string>('context'), 'failed to base64-decode context');
  const nonce = fields.get<string>('nonce');
  if (nonce !== '') decodeWithMessage(nonce, 'failed to base64-decode nonce');
  const policy = usePolicy(request.storage, nameOf(request));
  if (!policy) throw badRequest('encryption key not found');
  const size = DATAKEY_BYTES[fields.get<number>('bits')];
  if (size === undefined) throw badRequest('invalid bits value');
  const associated = fields.get<string>('associated_data');
  if (associated !== '' && !supportsAssociatedData(policy.type)) {
    throw badRequest(`'[0].associated_data' provided for non-AEAD cipher suite ${policy.type}`);
  }
  if (nonce !== '') throw badRequest('provided nonce not allowed for this key');
  const dataKey = randomBytes(size);
  const version = encryptionVersion(policy, fields.get<number>('key_version'));
  const ciphertext = encrypt(policy, version, dataKey, {
    context,
    associatedData: associated === '' ? undefined : decodeStdBase64(associated),
  });
  return {
    data: { ciphertext, key_version: version, ...(kind === 'plaintext' ? { plaintext: dataKey.toString('base64') } : {}) },
  };
}

export function cryptoPaths(deps: KeyDependencies): PathSpec[] {
  return [
    {
      pattern: 'encrypt/:name',
      summary: 'Encrypt base64 plaintext (or a batch) with the named key; creates an AES key when there is none.',
      fields: ENCRYPT_FIELDS,
      // Read as the handler reads it, through the request's one storage view, so the handler's read
      // costs nothing (MountStorage.getShared); an entry that is there but does not open still exists.
      existenceCheck: (request) =>
        usePolicy(request.storage, nameOf(request)) !== undefined || request.storage.has(policyKey(nameOf(request))),
      operations: { create: (request) => encryptPath(request, deps), update: (request) => encryptPath(request, deps) },
    },
    {
      pattern: 'decrypt/:name',
      summary: 'Decrypt a vault:vN: ciphertext (or a batch) with the named key.',
      fields: { ...CIPHER_FIELDS, ciphertext: { type: 'string', description: 'The ciphertext.', default: '' } },
      operations: { update: decryptPath },
    },
    {
      pattern: 'rewrap/:name',
      summary: 'Decrypt and encrypt again with the latest (or given) version, never showing the plaintext.',
      fields: { ...CIPHER_FIELDS, ciphertext: { type: 'string', description: 'The ciphertext.', default: '' } },
      operations: { update: rewrapPath },
    },
    {
      pattern: 'datakey/:plaintext/:name',
      summary: 'A new random data key, encrypted with the named key (and in plaintext when asked).',
      fields: { ...CIPHER_FIELDS, bits: { type: 'int', description: 'Data key size: 128, 256 or 512.', default: 256 } },
      operations: { update: datakeyPath },
    },
  ];
}
