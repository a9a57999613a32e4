import {
  constants,
  createCipheriv,
  createDecipheriv,
  createHmac,
  hkdfSync,
  privateDecrypt,
  publicEncrypt,
  webcrypto,
  type CipherGCMTypes,
  type KeyObject,
} from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import { pooledRandomBytes } from '../../../core/random-pool.js';
import { upstream500 } from '../../framework/errors.js';
import { decodeStdBase64 } from './encoding.js';
import { KEY_TYPES, supportsDerivation, supportsEncryption, type KeyTypeName } from './key-types.js';
import { privateKeyOf, publicKeyOf, rawBytes, versionEntry, type KeyPolicy } from './policy.js';

/** The real service's version prefix, `vault:v<N>:`, on ciphertexts, signatures and HMACs. */
export const versionPrefix = (version: number) => `vault:v${version}:`;

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export const MISSING_CONTEXT =
  "missing 'context' for key derivation; the key was created using a derived key, " +
  'which means additional, per-request information must be included in order to perform operations with the key';

/**
 * The key a version uses: the stored bytes, or for derived keys HKDF-SHA256 over them with no salt
 * and the context as info (the real service's `hkdf_sha256` mode). HKDF output is a stream, so
 * the first 32 bytes of a 64-byte derivation are the 32-byte derivation.
 */
export function deriveKey(policy: KeyPolicy, version: number, context: Buffer, length: number): Buffer {
  if (!policy.derived) return rawBytes(versionEntry(policy, version));
  if (!supportsDerivation(policy.type)) throw upstream500(badRequest(`derivation not supported for key type ${policy.type}`));
  if (version <= 0 || version > policy.latest_version) throw badRequest('invalid key version');
  if (context.length === 0) throw badRequest(MISSING_CONTEXT);
  return Buffer.from(hkdfSync('sha256', rawBytes(versionEntry(policy, version)), Buffer.alloc(0), context, length));
}

/** The version an encryption uses, with the real service's errors for versions it may not use. */
export function encryptionVersion(policy: KeyPolicy, requested: number): number {
  if (requested === 0) return policy.latest_version;
  if (requested < 0) throw badRequest('requested version for encryption is negative');
  if (requested > policy.latest_version) throw badRequest('requested version for encryption is higher than the latest key version');
  if (requested < policy.min_encryption_version) {
    throw badRequest('requested version for encryption is less than the minimum encryption key version');
  }
  return requested;
}

export interface CipherInput {
  context: Buffer;
  associatedData?: Buffer | undefined;
}

/** Node types ChaCha20-Poly1305 apart from GCM, but both take the same AEAD calls. */
function aeadCipher(type: KeyTypeName): CipherGCMTypes {
  return (KEY_TYPES[type].cipher ?? 'aes-256-gcm') as CipherGCMTypes;
}

/**
 * Encrypts `plaintext` with a version of the key: `vault:vN:` + base64(nonce ‖ ciphertext ‖ tag)
 * for AEAD keys (random nonce, or for convergent keys the first 12 bytes of HMAC-SHA256 of the
 * plaintext under the second half of a 64-byte derivation), base64(RSA-OAEP-SHA256) for RSA.
 */
export function encrypt(policy: KeyPolicy, version: number, plaintext: Buffer, input: CipherInput): string {
  if (!supportsEncryption(policy.type)) throw badRequest(`message encryption not supported for key type ${policy.type}`);
  const info = KEY_TYPES[policy.type];
  let sealed: Buffer;
  if (info.family === 'rsa') {
    sealed = rsaEncrypt(policy, version, plaintext);
  } else {
    const keyBytes = info.keyBytes ?? 32;
    const convergent = policy.convergent_encryption;
    const material = deriveKey(policy, version, input.context, keyBytes + (convergent ? 32 : 0));
    // The stored key itself when nothing was derived past it: a view of it would be one more object per item.
    const key = material.length === keyBytes ? material : material.subarray(0, keyBytes);
    const nonce = convergent
      ? createHmac('sha256', material.subarray(keyBytes)).update(plaintext).digest().subarray(0, NONCE_BYTES)
      : pooledRandomBytes(NONCE_BYTES);
    const cipher = createCipheriv(aeadCipher(policy.type), key, nonce, { authTagLength: TAG_BYTES });
    if (input.associatedData) cipher.setAAD(input.associatedData, { plaintextLength: plaintext.length });
    sealed = Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  }
  return `${versionPrefix(version)}${sealed.toString('base64')}`;
}

function rsaEncrypt(policy: KeyPolicy, version: number, plaintext: Buffer): Buffer {
  try {
    return publicEncrypt(
      { key: publicKeyOf(versionEntry(policy, version)), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
      plaintext,
    );
  } catch (error) {
    if ((error as { status?: number }).status === 400) throw error;
    throw upstream500(badRequest('failed to RSA encrypt the plaintext: crypto/rsa: message too long for RSA key size'));
  }
}

/** `vault:vN:<payload>` split, with the real service's texts for each way it can be malformed. */
export function parseVersioned(value: string, what: 'ciphertext' | 'signature'): { version: number; payload: string } {
  const prefix = 'vault:v';
  if (!value.startsWith(prefix)) throw badRequest(`invalid ${what}: no prefix`);
  const rest = value.slice(prefix.length);
  const colon = rest.indexOf(':');
  if (colon === -1) throw badRequest(`invalid ${what}: wrong number of fields`);
  const digits = rest.slice(0, colon);
  if (!/^[+-]?\d+$/.test(digits)) throw badRequest(`invalid ${what}: version number could not be decoded`);
  return { version: Number(digits), payload: rest.slice(colon + 1) };
}

/** The version a decryption or verification may use, or the real service's refusal. */
export function checkReadableVersion(policy: KeyPolicy, version: number, what: 'ciphertext' | 'signature'): number {
  const resolved = version === 0 ? 1 : version;
  if (resolved > policy.latest_version) throw badRequest(`invalid ${what}: version is too new`);
  if (policy.min_decryption_version > 0 && resolved < policy.min_decryption_version) {
    throw badRequest('ciphertext or signature version is disallowed by policy (too old)');
  }
  return resolved;
}

function openCiphertext(policy: KeyPolicy, ciphertext: string): { version: number; decoded: Buffer } {
  if (!supportsEncryption(policy.type)) throw badRequest(`message decryption not supported for key type ${policy.type}`);
  const parsed = parseVersioned(ciphertext, 'ciphertext');
  const version = checkReadableVersion(policy, parsed.version, 'ciphertext');
  try {
    return { version, decoded: decodeStdBase64(parsed.payload) };
  } catch {
    throw badRequest('invalid ciphertext: could not decode base64');
  }
}

const RSA_DECRYPT_FAILED = 'failed to RSA decrypt the ciphertext: crypto/rsa: decryption error';

/** The WebCrypto form of an RSA private key, made once per key (the key objects are cached by policy.ts). */
const oaepKeys = new WeakMap<KeyObject, Promise<CryptoKey>>();
function oaepKey(key: KeyObject): Promise<CryptoKey> {
  let found = oaepKeys.get(key);
  if (!found) {
    const der = key.export({ format: 'der', type: 'pkcs8' });
    found = webcrypto.subtle.importKey('pkcs8', der, { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['decrypt']);
    oaepKeys.set(key, found);
  }
  return found;
}

/**
 * {@link decrypt}, with RSA-OAEP on libuv's threads (WebCrypto's is asynchronous; Node's
 * `privateDecrypt` is not): an RSA-4096 decryption costs milliseconds, so a batch of them must
 * not run on the event loop. Same parameters: SHA-256 for OAEP and MGF1, no label.
 */
export async function decryptOffLoop(policy: KeyPolicy, ciphertext: string, input: CipherInput): Promise<Buffer> {
  if (KEY_TYPES[policy.type].family !== 'rsa') return decrypt(policy, ciphertext, input);
  const { version, decoded } = openCiphertext(policy, ciphertext);
  try {
    const key = await oaepKey(privateKeyOf(versionEntry(policy, version)));
    return Buffer.from(await webcrypto.subtle.decrypt({ name: 'RSA-OAEP' }, key, decoded));
  } catch {
    throw badRequest(RSA_DECRYPT_FAILED);
  }
}

/** Decrypts a `vault:vN:` ciphertext; returns the plaintext bytes. */
export function decrypt(policy: KeyPolicy, ciphertext: string, input: CipherInput): Buffer {
  const { version, decoded } = openCiphertext(policy, ciphertext);
  const info = KEY_TYPES[policy.type];
  if (info.family === 'rsa') {
    try {
      return privateDecrypt(
        { key: privateKeyOf(versionEntry(policy, version)), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' },
        decoded,
      );
    } catch (error) {
      if ((error as { status?: number }).status === 400) throw error;
      throw badRequest(RSA_DECRYPT_FAILED);
    }
  }
  const key = deriveKey(policy, version, input.context, info.keyBytes ?? 32);
  if (decoded.length < NONCE_BYTES) throw badRequest('invalid ciphertext length');
  const nonce = decoded.subarray(0, NONCE_BYTES);
  const body = decoded.subarray(NONCE_BYTES);
  const cipher = aeadCipher(policy.type);
  const failure = `${policy.type === 'chacha20-poly1305' ? 'chacha20poly1305' : 'cipher'}: message authentication failed`;
  if (body.length < TAG_BYTES) throw badRequest(failure);
  try {
    const decipher = createDecipheriv(cipher, key, nonce, { authTagLength: TAG_BYTES });
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    if (input.associatedData) decipher.setAAD(input.associatedData, { plaintextLength: body.length - TAG_BYTES });
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw badRequest(failure);
  }
}
