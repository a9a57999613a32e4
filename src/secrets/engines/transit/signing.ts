import { createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import { checkReadableVersion, deriveKey, parseVersioned, versionPrefix } from './ciphertext.js';
import { KEY_TYPES } from './key-types.js';
import { ed25519FromSeed, privateKeyOf, rawBytes, versionEntry, type KeyPolicy, type KeyVersion } from './policy.js';
import {
  NODE_HASH,
  signDigest,
  signMessage,
  signMessageOffLoop,
  verifyDigest,
  verifyMessageOffLoop,
  type DigestSignOptions,
} from './raw-signatures.js';

/** The hash names the API takes, as Node (OpenSSL) names them; `none` means "the input is the digest". */
export const HASHES: Readonly<Record<string, string>> = { ...NODE_HASH, none: 'none' };

export interface SignOptions {
  hash: string;
  prehashed: boolean;
  /** `pss` or `pkcs1v15` (RSA only; empty means pss). */
  signatureAlgorithm: string;
  marshaling: 'asn1' | 'jws';
  /** `auto`, `hash` or a number of bytes (RSA-PSS only). */
  saltLength: 'auto' | 'hash' | number;
}

/** The version a signature is made with, with the real service's refusals. */
export function signingVersion(policy: KeyPolicy, requested: number): number {
  if (requested === 0) return policy.latest_version;
  if (requested < 0) throw badRequest('requested version for signing is negative');
  if (requested > policy.latest_version) throw badRequest('requested version for signing is higher than the latest key version');
  if (policy.min_encryption_version > 0 && requested < policy.min_encryption_version) {
    throw badRequest('requested version for signing is less than the minimum encryption key version');
  }
  return requested;
}

/** The ed25519 key a version signs with: its own, or the one derived from the context. */
function ed25519Key(policy: KeyPolicy, entry: KeyVersion, version: number, context: Buffer): KeyObject {
  const seed = policy.derived ? deriveKey(policy, version, context, 32) : rawBytes(entry).subarray(0, 32);
  return ed25519FromSeed(seed);
}

function rsaPadding(options: SignOptions) {
  const algorithm = options.signatureAlgorithm === '' ? 'pss' : options.signatureAlgorithm;
  if (algorithm !== 'pss' && algorithm !== 'pkcs1v15') throw badRequest(`unsupported rsa signature algorithm ${algorithm}`);
  if (options.hash === 'none' && (!options.prehashed || algorithm !== 'pkcs1v15')) {
    throw badRequest('hash_algorithm=none requires both prehashed=true and signature_algorithm=pkcs1v15');
  }
  return algorithm;
}

/** ECDSA and RSA sign a digest: Node hashes the input, unless the caller sent the digest itself. */
function digestSigner(policy: KeyPolicy, options: SignOptions): { prehashed: boolean; options: DigestSignOptions } {
  const algorithm = KEY_TYPES[policy.type].family === 'rsa' ? rsaPadding(options) : 'ecdsa';
  return {
    prehashed: options.prehashed || options.hash === 'none',
    options: { algorithm, hash: options.hash, saltLength: options.saltLength, ieee: options.marshaling === 'jws' },
  };
}

export interface Signature {
  signature: string;
  key_version: number;
  public_key?: string;
}

/** Signs `input`; the result is `vault:vN:` + base64 (url-safe, unpadded for `jws`). */
export function signInput(policy: KeyPolicy, requested: number, input: Buffer, context: Buffer, options: SignOptions): Signature {
  const version = signingVersion(policy, requested);
  const entry = versionEntry(policy, version);
  const family = KEY_TYPES[policy.type].family;
  let raw: Buffer;
  let publicKey: string | undefined;
  if (family === 'ed25519') {
    const key = ed25519Key(policy, entry, version, context);
    raw = sign(null, input, key);
    if (policy.derived) publicKey = Buffer.from(createPublicKey(key).export({ format: 'jwk' }).x ?? '', 'base64url').toString('base64');
  } else {
    const signer = digestSigner(policy, options);
    const key = privateKeyOf(entry);
    raw = signer.prehashed ? signDigest(key, input, signer.options) : signMessage(key, input, signer.options);
  }
  return signature(raw, version, options, publicKey);
}

function signature(raw: Buffer, version: number, options: SignOptions, publicKey?: string): Signature {
  const encoded = options.marshaling === 'jws' ? raw.toString('base64url') : raw.toString('base64');
  return { signature: `${versionPrefix(version)}${encoded}`, key_version: version, ...(publicKey ? { public_key: publicKey } : {}) };
}

/**
 * {@link signInput}, with the RSA and ECDSA signing of a message on libuv's threads instead of
 * the event loop (ed25519 and signatures of a given digest are cheap or hand-encoded: those stay
 * here, bounded per item).
 */
export async function signInputOffLoop(
  policy: KeyPolicy,
  requested: number,
  input: Buffer,
  context: Buffer,
  options: SignOptions,
): Promise<Signature> {
  const family = KEY_TYPES[policy.type].family;
  if (family === 'ed25519') return signInput(policy, requested, input, context, options);
  const signer = digestSigner(policy, options);
  if (signer.prehashed) return signInput(policy, requested, input, context, options);
  const version = signingVersion(policy, requested);
  const raw = await signMessageOffLoop(privateKeyOf(versionEntry(policy, version)), input, signer.options);
  return signature(raw, version, options);
}

/** Verifies a `vault:vN:` signature of `input`; RSA and ECDSA verification of a message run on libuv's threads. */
export async function verifyInput(
  policy: KeyPolicy,
  signature: string,
  input: Buffer,
  context: Buffer,
  options: SignOptions,
): Promise<boolean> {
  const parsed = parseVersioned(signature, 'signature');
  if (parsed.version > policy.latest_version) throw badRequest('invalid signature: version is too new');
  const version = checkReadableVersion(policy, parsed.version, 'signature');
  const encoded = parsed.payload;
  const valid =
    options.marshaling === 'jws' ? /^[A-Za-z0-9_-]*$/.test(encoded) : /^[A-Za-z0-9+/]*={0,2}$/.test(encoded) && encoded.length % 4 === 0;
  if (!valid) throw badRequest('invalid base64 signature value');
  const raw = Buffer.from(encoded, options.marshaling === 'jws' ? 'base64url' : 'base64');
  const entry = versionEntry(policy, version);
  const family = KEY_TYPES[policy.type].family;
  if (family === 'ed25519') return verify(null, input, ed25519Key(policy, entry, version, context), raw);
  const signer = digestSigner(policy, options);
  const key = privateKeyOf(entry);
  try {
    if (signer.prehashed) return verifyDigest(key, input, raw, signer.options);
    return await verifyMessageOffLoop(key, input, raw, signer.options);
  } catch {
    // OpenSSL refuses a malformed signature outright; to the caller it is simply not valid.
    return false;
  }
}
