import { createPublicKey } from 'node:crypto';
import { KEY_TYPES, supportsDerivation, supportsEncryption, supportsSigning, type KeyTypeName } from './key-types.js';
import { deriveKey } from './ciphertext.js';
import { ed25519FromSeed, liveVersions, type KeyPolicy } from './policy.js';

/** A key as `keys/:name` (and create, config, rotate, trim) answers it. */
export function keyView(policy: KeyPolicy, context?: Buffer): Record<string, unknown> {
  const data: Record<string, unknown> = {
    name: policy.name,
    type: policy.type,
    derived: policy.derived,
    deletion_allowed: policy.deletion_allowed,
    min_available_version: policy.min_available_version,
    min_decryption_version: policy.min_decryption_version,
    min_encryption_version: policy.min_encryption_version,
    latest_version: policy.latest_version,
    exportable: policy.exportable,
    allow_plaintext_backup: policy.allow_plaintext_backup,
    supports_encryption: supportsEncryption(policy.type),
    supports_decryption: supportsEncryption(policy.type),
    supports_signing: supportsSigning(policy.type),
    supports_derivation: supportsDerivation(policy.type),
    auto_rotate_period: policy.auto_rotate_period,
    imported_key: false,
    keys: versionsView(policy, context),
  };
  if (policy.key_size !== 0) data['key_size'] = policy.key_size;
  if (policy.backup_info) data['backup_info'] = policy.backup_info;
  if (policy.restore_info) data['restore_info'] = policy.restore_info;
  if (policy.derived) {
    data['kdf'] = 'hkdf_sha256';
    data['convergent_encryption'] = policy.convergent_encryption;
    if (policy.convergent_encryption) data['convergent_encryption_version'] = -1;
  }
  return data;
}

/** Symmetric keys list creation times (Unix seconds); asymmetric ones their public keys. */
function versionsView(policy: KeyPolicy, context?: Buffer): Record<string, unknown> {
  const info = KEY_TYPES[policy.type];
  const views: Record<string, unknown> = {};
  for (const [version, entry] of liveVersions(policy)) {
    if (info.family === 'aead' || info.family === 'hmac') {
      views[version] = entry.creation_time;
      continue;
    }
    views[version] = {
      name: keyName(policy.type),
      public_key: publicKeyText(policy, Number(version), entry.public_key ?? '', context),
      certificate_chain: '',
      creation_time: entry.time,
    };
  }
  return views;
}

function keyName(type: KeyTypeName): string {
  const info = KEY_TYPES[type];
  if (info.curve) return info.curve.display;
  return type;
}

/** A derived ed25519 key has no public key of its own; with a context, the derived one is shown. */
function publicKeyText(policy: KeyPolicy, version: number, stored: string, context?: Buffer): string {
  if (policy.type !== 'ed25519' || !policy.derived) return stored;
  if (!context || context.length === 0) return '';
  return derivedEd25519Public(policy, version, context).toString('base64');
}

export function derivedEd25519Public(policy: KeyPolicy, version: number, context: Buffer): Buffer {
  const seed = deriveKey(policy, version, context, 32);
  const jwk = createPublicKey(ed25519FromSeed(seed)).export({ format: 'jwk' });
  return Buffer.from(jwk.x ?? '', 'base64url');
}
