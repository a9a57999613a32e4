import { createPrivateKey, createPublicKey, generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import { promisify } from 'node:util';
import { badRequest } from '../../../core/errors.js';
import type { MountStorage } from '../../storage/mount-storage.js';
import { KEY_TYPES, type KeyTypeName } from './key-types.js';

const generate = promisify(generateKeyPair);

/** One version of a key. Byte strings are base64, as the real service's JSON stores `[]byte`. */
export interface KeyVersion {
  /** AEAD key, HMAC key, or the 64-byte ed25519 private key (seed then public key). */
  key?: string;
  /** The 32-byte key behind `hmac/` for every key type but `hmac`, and behind convergent nonces. */
  hmac_key: string;
  /** ECDSA and RSA private keys, PKCS#8 PEM. */
  private_key?: string;
  /** What a key read shows: PEM for ECDSA and RSA, raw base64 for ed25519. */
  public_key?: string;
  /** RFC 3339 creation time, and the same in Unix seconds (what symmetric key reads list). */
  time: string;
  creation_time: number;
  /** Set on convergent keys: the nonce scheme this version uses (understudy only makes version 3). */
  convergent_version?: number;
}

/** A named key (`policy/<name>` in mount storage), the real service's "policy". */
export interface KeyPolicy {
  name: string;
  type: KeyTypeName;
  derived: boolean;
  convergent_encryption: boolean;
  exportable: boolean;
  deletion_allowed: boolean;
  allow_plaintext_backup: boolean;
  min_decryption_version: number;
  /** 0 means "the latest version". */
  min_encryption_version: number;
  min_available_version: number;
  latest_version: number;
  /** Seconds; 0 disables automatic rotation. */
  auto_rotate_period: number;
  /** HMAC keys only: key length in bytes. */
  key_size: number;
  keys: Record<string, KeyVersion>;
  backup_info?: { time: string; version: number };
  restore_info?: { time: string; version: number };
}

export const policyKey = (name: string) => `policy/${name}`;
export const readPolicy = (storage: MountStorage, name: string) => storage.get<KeyPolicy>(policyKey(name));
/**
 * The key for paths that only use it (encrypt, decrypt, rewrap, datakey): frozen and shared
 * between requests while its stored form is unchanged, so a hot key is not decrypted and parsed
 * again on every request. Paths that change a key read it with `readPolicy`.
 */
export const usePolicy = (storage: MountStorage, name: string) => storage.getShared<KeyPolicy>(policyKey(name));
export const writePolicy = (storage: MountStorage, policy: KeyPolicy) => storage.put(policyKey(policy.name), policy);

/**
 * The version entry, or the real service's error for a version that is gone or never was. Versions
 * below `min_decryption_version` are archived there (kept, but out of reach until it is lowered).
 */
export function versionEntry(policy: KeyPolicy, version: number): KeyVersion {
  const entry = version < policy.min_decryption_version ? undefined : policy.keys[String(version)];
  if (!entry) throw badRequest('no such key version');
  return entry;
}

/** A fresh version of `type` (asymmetric keys are generated off the event loop). */
export async function newVersion(type: KeyTypeName, keySize: number, now: Date, convergent: boolean): Promise<KeyVersion> {
  const info = KEY_TYPES[type];
  const base: KeyVersion = {
    hmac_key: randomBytes(32).toString('base64'),
    time: now.toISOString(),
    creation_time: Math.floor(now.getTime() / 1000),
    ...(convergent ? { convergent_version: 3 } : {}),
  };
  switch (info.family) {
    case 'aead':
      return { ...base, key: randomBytes(info.keyBytes ?? 32).toString('base64') };
    case 'hmac':
      return { ...base, key: randomBytes(keySize).toString('base64') };
    case 'ed25519': {
      const { privateKey } = await generate('ed25519');
      const jwk = privateKey.export({ format: 'jwk' });
      const seed = Buffer.from(jwk.d ?? '', 'base64url');
      const pub = Buffer.from(jwk.x ?? '', 'base64url');
      return { ...base, key: Buffer.concat([seed, pub]).toString('base64'), public_key: pub.toString('base64') };
    }
    case 'ecdsa': {
      const { privateKey, publicKey } = await generate('ec', { namedCurve: info.curve?.openssl ?? 'prime256v1' });
      return { ...base, ...asymmetricMaterial(privateKey, publicKey) };
    }
    case 'rsa': {
      const { privateKey, publicKey } = await generate('rsa', { modulusLength: info.rsaBits ?? 2048 });
      return { ...base, ...asymmetricMaterial(privateKey, publicKey) };
    }
  }
}

function asymmetricMaterial(privateKey: KeyObject, publicKey: KeyObject) {
  return {
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    public_key: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

/** Parsed PEM keys, so a hot signing key is not re-parsed on every request (bounded; PEM text is the key). */
const parsed = new Map<string, KeyObject>();
const PARSED_LIMIT = 512;

function cachedKey(pemText: string, parse: (text: string) => KeyObject): KeyObject {
  let found = parsed.get(pemText);
  if (!found) {
    if (parsed.size >= PARSED_LIMIT) parsed.delete(parsed.keys().next().value as string);
    found = parse(pemText);
    parsed.set(pemText, found);
  }
  return found;
}

export const privateKeyOf = (entry: KeyVersion) => cachedKey(entry.private_key ?? '', (text) => createPrivateKey(text));
export const publicKeyOf = (entry: KeyVersion) => createPublicKey(privateKeyOf(entry));

/** ed25519: the private key object for a 32-byte seed. */
export function ed25519FromSeed(seed: Buffer): KeyObject {
  const prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
  return createPrivateKey({ key: Buffer.concat([prefix, seed]), format: 'der', type: 'pkcs8' });
}

/**
 * Decoded symmetric keys, so a hot key's base64 is not decoded again for every item of every
 * request (bounded; the base64 text is the key, so a rotated or rewritten key is a new entry).
 * The buffers are shared: callers only read them.
 */
const decoded = new Map<string, Buffer>();

export function rawBytes(entry: KeyVersion): Buffer {
  const text = entry.key ?? '';
  let found = decoded.get(text);
  if (!found) {
    if (decoded.size >= PARSED_LIMIT) decoded.delete(decoded.keys().next().value as string);
    found = Buffer.from(text, 'base64');
    decoded.set(text, found);
  }
  return found;
}

/** The versions the real service keeps at hand: those at or above `min_decryption_version`. */
export function liveVersions(policy: KeyPolicy): [string, KeyVersion][] {
  return Object.entries(policy.keys).filter(([version]) => Number(version) >= policy.min_decryption_version);
}
