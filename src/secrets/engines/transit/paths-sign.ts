import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { attempt, batchItems, batchResults, stringOf, type BatchItem } from './batch.js';
import { versionPrefix } from './ciphertext.js';
import { decodeStdBase64 } from './encoding.js';
import { KEY_TYPES, supportsSigning } from './key-types.js';
import { nameOf } from './paths-keys.js';
import { readPolicy, versionEntry, type KeyPolicy } from './policy.js';
import { HASHES, signInputOffLoop, verifyInput, type SignOptions } from './signing.js';
import { attemptAsync, mapInSlices } from './slices.js';

const ALGORITHM_FIELDS: Record<string, FieldSpec> = {
  hash_algorithm: { type: 'string', description: 'sha1, sha2-224/256/384/512, sha3-224/256/384/512, or none.', default: '' },
  algorithm: { type: 'string', description: 'Deprecated name of hash_algorithm.', default: '' },
};

const SIGN_FIELDS: Record<string, FieldSpec> = {
  ...ALGORITHM_FIELDS,
  input: { type: 'string', description: 'Base64 input.', default: '' },
  context: { type: 'string', description: 'Base64 context for derived ed25519 keys.', default: '' },
  key_version: { type: 'int', description: 'The version to sign with (0: the latest).', default: 0 },
  prehashed: { type: 'bool', description: 'The input is already a digest.', default: false },
  signature_algorithm: { type: 'string', description: 'RSA: pss (default) or pkcs1v15.', default: '' },
  marshaling_algorithm: { type: 'string', description: 'asn1 (default) or jws.', default: 'asn1' },
  salt_length: { type: 'string', description: "RSA-PSS salt: 'auto', 'hash' or a byte count.", default: 'auto' },
  batch_input: { type: 'any', description: 'Items to sign or verify in one request.' },
  signature: { type: 'string', description: 'The signature to verify.' },
  hmac: { type: 'string', description: 'The HMAC to verify.' },
};

/** Hash algorithm from the URL, then `hash_algorithm`, then `algorithm`; sha2-256 by default. */
function hashOf(request: HandlerRequest): string {
  const chosen =
    request.params['algorithm'] || request.fields.get<string>('hash_algorithm') || request.fields.get<string>('algorithm') || 'sha2-256';
  if (!HASHES[chosen]) throw badRequest(`invalid hash algorithm "${chosen}"`);
  return chosen;
}

function signOptions(request: HandlerRequest): SignOptions {
  const hash = hashOf(request);
  const marshaling = request.fields.get<string>('marshaling_algorithm');
  if (marshaling !== 'asn1' && marshaling !== 'jws') throw badRequest(`invalid marshaling type "${marshaling}"`);
  const saltText = request.fields.get<string>('salt_length').toLowerCase();
  let saltLength: SignOptions['saltLength'];
  if (saltText === 'auto' || saltText === 'hash') saltLength = saltText;
  else if (/^-?\d+$/.test(saltText)) {
    saltLength = Number(saltText);
    if (saltLength < -1) throw badRequest(`salt length is invalid: ${saltText}`);
  } else throw badRequest(`salt length neither 'auto', 'hash', nor an int: ${saltText}`);
  return {
    hash,
    prehashed: request.fields.get<boolean>('prehashed'),
    signatureAlgorithm: request.fields.get<string>('signature_algorithm'),
    marshaling,
    saltLength,
  };
}

function signingKey(request: HandlerRequest, missing: string, verb: string): KeyPolicy {
  const policy = readPolicy(request.storage, nameOf(request));
  if (!policy) throw badRequest(missing);
  if (!supportsSigning(policy.type)) throw badRequest(`key type ${policy.type} does not support ${verb}`);
  return policy;
}

function inputsOf(request: HandlerRequest, names: string[]): { items: BatchItem[]; batch: boolean } {
  const batch = batchItems(request);
  if (batch) return { items: batch, batch: true };
  const item: BatchItem = { input: request.fields.get<string>('input') };
  for (const name of names) if (request.fields.has(name)) item[name] = request.fields.get<string>(name);
  return { items: [item], batch: false };
}

function answer(
  batch: boolean,
  items: BatchItem[],
  results: ({ value: Record<string, unknown> } | { error: string })[],
  onError: Record<string, unknown> = {},
): LogicalResponse {
  if (!batch) {
    const [result] = results;
    if (!result || 'error' in result) throw badRequest(result && 'error' in result ? result.error : 'missing input');
    return { data: result.value };
  }
  return { data: { batch_results: batchResults(items, results, onError) } };
}

async function signPath(request: HandlerRequest): Promise<LogicalResponse> {
  const options = signOptions(request);
  const policy = signingKey(request, 'signing key not found', 'signing');
  const { items, batch } = inputsOf(request, ['context']);
  const version = request.fields.get<number>('key_version');
  const results = await mapInSlices(items, (item) =>
    attemptAsync(async () => {
      if (item['input'] === undefined) throw badRequest('missing input');
      const input = decodeInput(stringOf(item, 'input'), 'unable to decode input');
      const context = decodeInput(stringOf(item, 'context'), 'failed to base64-decode context', true);
      return { ...(await signInputOffLoop(policy, version, input, context, options)) };
    }),
  );
  return answer(batch, items, results);
}

function decodeInput(value: string, message: string, bare = false): Buffer {
  try {
    return decodeStdBase64(value);
  } catch (error) {
    throw badRequest(bare ? message : `${message}: ${(error as Error).message}`);
  }
}

async function verifyPath(request: HandlerRequest): Promise<LogicalResponse> {
  const { items, batch } = inputsOf(request, ['signature', 'hmac', 'context']);
  const hasSignature = items.some((item) => item['signature'] !== undefined);
  const hasHmac = items.some((item) => item['hmac'] !== undefined);
  const missing = items.some((item) => item['signature'] === undefined && item['hmac'] === undefined);
  const kinds = Number(hasSignature) + Number(hasHmac);
  if (!batch && kinds > 1) throw badRequest("provide one of 'signature', 'hmac' or 'cmac'");
  if (!batch && kinds === 0) throw badRequest("missing one of 'signature', 'hmac' or 'cmac' arguments to verify");
  if (kinds > 1) throw badRequest("elements of batch_input must all provide either 'signature', 'hmac' or 'cmac'");
  if (missing && hasSignature) throw badRequest("some elements of batch_input are missing 'signature'");
  if (missing && hasHmac) throw badRequest("some elements of batch_input are missing 'hmac'");
  if (kinds === 0) throw badRequest("no batch_input elements have 'signature', 'hmac' or 'cmac'");
  if (hasHmac) return hmacVerify(request, items, batch);
  const options = signOptions(request);
  const policy = signingKey(request, 'signature verification key not found', 'signing');
  const results = await mapInSlices(items, (item) =>
    attemptAsync(async () => {
      const input = decodeInput(stringOf(item, 'input'), 'failed to parse item: unable to decode input');
      const context = decodeInput(stringOf(item, 'context'), 'failed to parse item: failed to base64-decode context', true);
      return { valid: await verifyInput(policy, stringOf(item, 'signature'), input, context, options) };
    }),
  );
  return answer(batch, items, results, { valid: false });
}

/** The HMAC key of a version: the key itself for `hmac` keys, the version's HMAC key otherwise. */
function hmacKey(policy: KeyPolicy, version: number): Buffer {
  if (version < 0) throw badRequest('key version does not exist (cannot be negative)');
  if (version > policy.latest_version) throw badRequest(`key version does not exist; latest key version is ${policy.latest_version}`);
  const entry = versionEntry(policy, version);
  return Buffer.from(KEY_TYPES[policy.type].family === 'hmac' ? (entry.key ?? '') : entry.hmac_key, 'base64');
}

/** From the URL, then (on `verify/`) `hash_algorithm`, then `algorithm`; sha2-256 by default. */
function hmacAlgorithm(request: HandlerRequest, verifying = false): string {
  const chosen =
    request.params['algorithm'] ||
    (verifying ? request.fields.get<string>('hash_algorithm') : '') ||
    request.fields.get<string>('algorithm') ||
    'sha2-256';
  const name = HASHES[chosen];
  if (!name || name === 'none') throw badRequest(`unsupported algorithm ${chosen}`);
  return name;
}

async function hmacPath(request: HandlerRequest): Promise<LogicalResponse> {
  const algorithm = hmacAlgorithm(request);
  const policy = readPolicy(request.storage, nameOf(request));
  if (!policy) throw badRequest('encryption key not found');
  let version = request.fields.get<number>('key_version');
  if (version === 0) version = policy.latest_version;
  else if (version !== policy.latest_version && policy.min_encryption_version > 0 && version < policy.min_encryption_version) {
    throw badRequest('cannot generate HMAC: version is too old (disallowed by policy)');
  }
  const key = hmacKey(policy, version);
  const { items, batch } = inputsOf(request, []);
  const results = await mapInSlices(items, (item) =>
    attempt(() => {
      if (item['input'] === undefined) throw badRequest('missing input for HMAC');
      const input = decodeInput(stringOf(item, 'input'), 'unable to decode input as base64');
      return { hmac: `${versionPrefix(version)}${createHmac(algorithm, key).update(input).digest('base64')}` };
    }),
  );
  return answer(batch, items, results);
}

async function hmacVerify(request: HandlerRequest, items: BatchItem[], batch: boolean): Promise<LogicalResponse> {
  const algorithm = hmacAlgorithm(request, true);
  const policy = readPolicy(request.storage, nameOf(request));
  if (!policy) throw badRequest('encryption key not found');
  const results = await mapInSlices(items, (item) =>
    attempt(() => {
      const text = stringOf(item, 'hmac');
      if (!text.startsWith('vault:v')) throw badRequest('invalid HMAC to verify: no version prefix');
      const rest = text.slice('vault:v'.length);
      const colon = rest.indexOf(':');
      if (colon === -1) throw badRequest('invalid HMAC: wrong number of fields');
      const digits = rest.slice(0, colon);
      if (!/^[+-]?\d+$/.test(digits)) throw badRequest('invalid HMAC: version number could not be decoded');
      const version = Number(digits);
      if (version > policy.latest_version) throw badRequest('invalid HMAC: version is too new');
      if (policy.min_decryption_version > 0 && version < policy.min_decryption_version) {
        throw badRequest('cannot verify HMAC: version is too old (disallowed by policy)');
      }
      const input = decodeInput(stringOf(item, 'input'), 'unable to decode input as base64');
      const expected = createHmac(algorithm, hmacKey(policy, version)).update(input).digest();
      const given = Buffer.from(rest.slice(colon + 1), 'base64');
      return { valid: given.length === expected.length && timingSafeEqual(given, expected) };
    }),
  );
  return answer(batch, items, results, { valid: false });
}

function hashPath(request: HandlerRequest): LogicalResponse {
  const chosen = request.params['algorithm'] || request.fields.get<string>('algorithm') || 'sha2-256';
  const input = decodeInput(request.fields.get<string>('input'), 'unable to decode input as base64');
  const format = request.fields.get<string>('format');
  if (format !== 'hex' && format !== 'base64') throw badRequest(`unsupported encoding format ${format}; must be "hex" or "base64"`);
  const name = HASHES[chosen];
  if (!name || name === 'none') throw badRequest(`unsupported algorithm ${chosen}`);
  return { data: { sum: createHash(name).update(input).digest(format) } };
}

const MAX_RANDOM_BYTES = 128 * 1024;
const SOURCES = new Set(['platform', 'seal', 'all']);

/** `random`, `random/:source`, `random/:bytes`, `random/:source/:bytes`; every source reads the platform's. */
function randomPath(request: HandlerRequest): LogicalResponse {
  const first = request.params['first'];
  const second = request.params['second'];
  let count = request.fields.get<number>('bytes');
  if (first !== undefined && second === undefined && !SOURCES.has(first)) {
    if (!/^-?\d+$/.test(first)) throw badRequest(`error parsing url-set byte count: strconv.Atoi: parsing "${first}": invalid syntax`);
    count = Number(first);
  } else if (second !== undefined) {
    if (!/^-?\d+$/.test(second)) throw badRequest(`error parsing url-set byte count: strconv.Atoi: parsing "${second}": invalid syntax`);
    count = Number(second);
  }
  const source = first !== undefined && SOURCES.has(first) ? first : request.fields.get<string>('source');
  if (!SOURCES.has(source)) throw badRequest(`unsupported entropy source "${source}"; must be "platform" or "seal", or "all"`);
  const format = request.fields.get<string>('format');
  if (count < 1) throw badRequest('"bytes" cannot be less than 1');
  if (count > MAX_RANDOM_BYTES) throw badRequest(`"bytes" should be less than ${MAX_RANDOM_BYTES}`);
  if (format !== 'hex' && format !== 'base64') throw badRequest(`unsupported encoding format "${format}"; must be "hex" or "base64"`);
  return { data: { random_bytes: randomBytes(count).toString(format) } };
}

const RANDOM_FIELDS: Record<string, FieldSpec> = {
  bytes: { type: 'int', description: 'How many bytes (default 32, at most 131072).', default: 32 },
  format: { type: 'string', description: 'base64 (default) or hex.', default: 'base64' },
  source: { type: 'string', description: 'platform, seal or all (all read the platform here).', default: 'platform' },
};

const HASH_FIELDS: Record<string, FieldSpec> = {
  input: { type: 'string', description: 'Base64 input.', default: '' },
  algorithm: { type: 'string', description: 'sha2-224/256/384/512 or sha3-224/256/384/512.', default: '' },
  format: { type: 'string', description: 'hex (default) or base64.', default: 'hex' },
};

const HMAC_FIELDS: Record<string, FieldSpec> = {
  input: { type: 'string', description: 'Base64 input.', default: '' },
  algorithm: { type: 'string', description: 'The hash (default sha2-256).', default: '' },
  key_version: { type: 'int', description: 'The version whose HMAC key is used (0: the latest).', default: 0 },
  batch_input: { type: 'any', description: 'Inputs to HMAC in one request.' },
};

/** Each path with and without its optional trailing algorithm segment. */
function withAlgorithm(pattern: string, spec: Omit<PathSpec, 'pattern'>): PathSpec[] {
  return [
    { ...spec, pattern },
    { ...spec, pattern: `${pattern}/:algorithm` },
  ];
}

export function signPaths(): PathSpec[] {
  return [
    ...withAlgorithm('sign/:name', {
      summary: 'Sign base64 input with the named key.',
      fields: SIGN_FIELDS,
      operations: { update: signPath },
    }),
    ...withAlgorithm('verify/:name', { summary: 'Verify a signature or HMAC.', fields: SIGN_FIELDS, operations: { update: verifyPath } }),
    ...withAlgorithm('hmac/:name', {
      summary: 'HMAC base64 input with the named key.',
      fields: HMAC_FIELDS,
      operations: { update: hmacPath },
    }),
    ...withAlgorithm('hash', { summary: 'Hash base64 input.', fields: HASH_FIELDS, operations: { update: hashPath } }),
    { pattern: 'random', summary: 'Random bytes.', fields: RANDOM_FIELDS, operations: { update: randomPath } },
    {
      pattern: 'random/:first',
      summary: 'Random bytes (source or count in the URL).',
      fields: RANDOM_FIELDS,
      operations: { update: randomPath },
    },
    {
      pattern: 'random/:first/:second',
      summary: 'Random bytes (source and count in the URL).',
      fields: RANDOM_FIELDS,
      operations: { update: randomPath },
    },
  ];
}
