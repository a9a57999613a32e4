import { createPrivateKey, createPublicKey, type JsonWebKey } from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import { decodeStdBase64 } from './encoding.js';
import { KEY_TYPES, type KeyTypeName } from './key-types.js';
import type { KeyPolicy, KeyVersion } from './policy.js';

/**
 * Plaintext backups in the real service's layout: base64 of `{"policy": …, "archived_keys":
 * {"keys": […]}}`, the Go structs as JSON — key types as numbers, durations in nanoseconds,
 * ECDSA and RSA keys as big integers — so a backup moves between understudy and the real engine.
 */

/** The real engine's key type numbers (its `KeyType` enum). */
const TYPE_NUMBERS: Readonly<Record<KeyTypeName, number>> = {
  'aes256-gcm96': 0,
  'ecdsa-p256': 1,
  ed25519: 2,
  'rsa-2048': 3,
  'rsa-4096': 4,
  'chacha20-poly1305': 5,
  'ecdsa-p384': 6,
  'ecdsa-p521': 7,
  'aes128-gcm96': 8,
  'rsa-3072': 9,
  hmac: 11,
};

const KDF_HKDF_SHA256 = 1;
const BIG = '~bigint~';

/** A big integer that the serializer writes as a bare JSON number. */
const big = (base64url: string | undefined) => `${BIG}${BigInt(`0x${Buffer.from(base64url ?? '', 'base64url').toString('hex') || '0'}`)}`;
const fromBig = (value: unknown) => {
  const hex = BigInt(String(value)).toString(16);
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex').toString('base64url');
};

function goEntry(type: KeyTypeName, entry: KeyVersion): Record<string, unknown> {
  const family = KEY_TYPES[type].family;
  const jwk = entry.private_key ? createPrivateKey(entry.private_key).export({ format: 'jwk' }) : undefined;
  return {
    key: family === 'ecdsa' || family === 'rsa' ? null : (entry.key ?? null),
    hmac_key: entry.hmac_key,
    time: entry.time,
    ec_x: family === 'ecdsa' ? big(jwk?.x) : null,
    ec_y: family === 'ecdsa' ? big(jwk?.y) : null,
    ec_d: family === 'ecdsa' ? big(jwk?.d) : null,
    rsa_key:
      family === 'rsa' && jwk
        ? {
            N: big(jwk.n),
            E: Number(BigInt(`0x${Buffer.from(jwk.e ?? '', 'base64url').toString('hex')}`)),
            D: big(jwk.d),
            Primes: [big(jwk.p), big(jwk.q)],
            Precomputed: { Dp: big(jwk.dp), Dq: big(jwk.dq), Qinv: big(jwk.qi), CRTValues: [] },
          }
        : null,
    rsa_public_key: null,
    public_key: family === 'rsa' ? '' : (entry.public_key ?? ''),
    convergent_version: entry.convergent_version ?? 0,
    creation_time: entry.creation_time,
  };
}

/** The backup text of `policy`. */
export function encodeBackup(policy: KeyPolicy): string {
  const keys = Object.fromEntries(Object.entries(policy.keys).map(([version, entry]) => [version, goEntry(policy.type, entry)]));
  // The archive is indexed by version from min_available_version; version 0 is an empty slot.
  const archived = Array.from({ length: policy.latest_version - policy.min_available_version + 1 }, (_, index) => {
    const entry = policy.keys[String(index + policy.min_available_version)];
    return entry ? goEntry(policy.type, entry) : { key: null, hmac_key: null, time: '0001-01-01T00:00:00Z', creation_time: 0 };
  });
  const document = {
    policy: {
      name: policy.name,
      key_size: policy.key_size || undefined,
      keys,
      derived: policy.derived,
      kdf: KDF_HKDF_SHA256,
      convergent_encryption: policy.convergent_encryption,
      exportable: policy.exportable,
      min_decryption_version: policy.min_decryption_version,
      min_encryption_version: policy.min_encryption_version,
      latest_version: policy.latest_version,
      archive_version: policy.latest_version,
      archive_min_version: policy.min_available_version,
      min_available_version: policy.min_available_version,
      deletion_allowed: policy.deletion_allowed,
      convergent_version: policy.convergent_encryption ? -1 : 0,
      type: TYPE_NUMBERS[policy.type],
      backup_info: policy.backup_info ?? null,
      restore_info: policy.restore_info ?? null,
      allow_plaintext_backup: policy.allow_plaintext_backup,
      version_template: '',
      storage_prefix: '',
      auto_rotate_period: policy.auto_rotate_period * 1e9,
      Imported: false,
      AllowImportedKeyRotation: false,
    },
    archived_keys: { keys: archived },
  };
  const text = JSON.stringify(document).replace(/"~bigint~(-?\d+)"/g, '$1');
  return Buffer.from(text).toString('base64');
}

const invalid = () => badRequest('failed to restore the policy: backup is not a transit key backup');

function privateKeyPem(type: KeyTypeName, entry: Record<string, unknown>): string | undefined {
  const family = KEY_TYPES[type].family;
  let jwk: JsonWebKey | undefined;
  if (family === 'ecdsa') {
    const crv = KEY_TYPES[type].curve?.display;
    jwk = { kty: 'EC', crv, x: fromBig(entry['ec_x']), y: fromBig(entry['ec_y']), d: fromBig(entry['ec_d']) };
  } else if (family === 'rsa') {
    const rsa = entry['rsa_key'] as { N: unknown; E: number; D: unknown; Primes: unknown[]; Precomputed?: Record<string, unknown> } | null;
    if (!rsa || rsa.Primes.length !== 2) throw invalid();
    const [p, q] = rsa.Primes.map(fromBig);
    const pre = rsa.Precomputed ?? {};
    jwk = {
      kty: 'RSA',
      n: fromBig(rsa.N),
      e: fromBig(rsa.E),
      d: fromBig(rsa.D),
      p,
      q,
      dp: fromBig(pre['Dp']),
      dq: fromBig(pre['Dq']),
      qi: fromBig(pre['Qinv']),
    };
  }
  return jwk ? createPrivateKey({ key: jwk, format: 'jwk' }).export({ type: 'pkcs8', format: 'pem' }).toString() : undefined;
}

function ourEntry(type: KeyTypeName, entry: Record<string, unknown>): KeyVersion {
  const privateKey = privateKeyPem(type, entry);
  // The real engine keeps no PEM for RSA public keys; a key read here shows one.
  const publicKey = privateKey
    ? createPublicKey(createPrivateKey(privateKey)).export({ type: 'spki', format: 'pem' }).toString()
    : typeof entry['public_key'] === 'string' && entry['public_key'] !== ''
      ? entry['public_key']
      : undefined;
  const time = typeof entry['time'] === 'string' ? entry['time'] : new Date(0).toISOString();
  return {
    ...(typeof entry['key'] === 'string' ? { key: entry['key'] } : {}),
    hmac_key: typeof entry['hmac_key'] === 'string' ? entry['hmac_key'] : '',
    ...(privateKey ? { private_key: privateKey } : {}),
    ...(publicKey ? { public_key: publicKey } : {}),
    time,
    creation_time: typeof entry['creation_time'] === 'number' ? entry['creation_time'] : Math.floor(Date.parse(time) / 1000),
    ...(typeof entry['convergent_version'] === 'number' && entry['convergent_version'] > 0
      ? { convergent_version: entry['convergent_version'] }
      : {}),
  };
}

/** A key from backup text (ours or the real engine's); big integers are read as decimal strings. */
export function decodeBackup(text: string): KeyPolicy {
  let document: { policy?: Record<string, unknown> } | null;
  try {
    const json = decodeStdBase64(text)
      .toString('utf8')
      .replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,\]}])/g, '$1"$2"');
    document = JSON.parse(json) as { policy?: Record<string, unknown> } | null;
  } catch {
    throw badRequest('failed to decode backup: invalid backup data');
  }
  const policy = document?.policy;
  if (typeof policy !== 'object' || policy === null) throw invalid();
  const type = (Object.entries(TYPE_NUMBERS).find(([, number]) => number === Number(policy['type']))?.[0] ?? '') as KeyTypeName | '';
  const keys = policy['keys'];
  if (!type || typeof policy['name'] !== 'string' || typeof keys !== 'object' || keys === null) throw invalid();
  if (Number(policy['kdf'] ?? KDF_HKDF_SHA256) !== KDF_HKDF_SHA256 && policy['derived'] === true) {
    throw badRequest('failed to restore the policy: only hkdf_sha256 derived keys can be restored here');
  }
  let converted: Record<string, KeyVersion>;
  try {
    converted = Object.fromEntries(
      Object.entries(keys).map(([version, entry]) => [version, ourEntry(type, entry as Record<string, unknown>)]),
    );
  } catch (error) {
    if ((error as { status?: number }).status === 400) throw error;
    throw invalid();
  }
  if (policy['convergent_encryption'] === true && Object.values(converted).some((entry) => entry.convergent_version !== 3)) {
    throw badRequest('failed to restore the policy: only version-3 convergent keys can be restored here');
  }
  const latest = Number(policy['latest_version']);
  if (!Number.isInteger(latest) || latest < 1 || !converted[String(latest)]) throw invalid();
  const number = (name: string) => (typeof policy[name] === 'number' ? policy[name] : 0);
  return {
    name: policy['name'],
    type,
    derived: policy['derived'] === true,
    convergent_encryption: policy['convergent_encryption'] === true,
    exportable: policy['exportable'] === true,
    deletion_allowed: policy['deletion_allowed'] === true,
    allow_plaintext_backup: policy['allow_plaintext_backup'] === true,
    min_decryption_version: Math.max(1, number('min_decryption_version')),
    min_encryption_version: number('min_encryption_version'),
    min_available_version: number('min_available_version'),
    latest_version: latest,
    auto_rotate_period: Math.floor(number('auto_rotate_period') / 1e9),
    key_size: number('key_size'),
    keys: converted,
    ...(policy['backup_info'] ? { backup_info: policy['backup_info'] as KeyPolicy['backup_info'] } : {}),
  };
}
