/**
 * The key types the transit engine creates and what each can do, as the real service's key
 * type table answers `supports_*` on a key read.
 */
export type KeyTypeName =
  | 'aes128-gcm96'
  | 'aes256-gcm96'
  | 'chacha20-poly1305'
  | 'ed25519'
  | 'ecdsa-p256'
  | 'ecdsa-p384'
  | 'ecdsa-p521'
  | 'rsa-2048'
  | 'rsa-3072'
  | 'rsa-4096'
  | 'hmac';

export type KeyFamily = 'aead' | 'ed25519' | 'ecdsa' | 'rsa' | 'hmac';

export interface KeyTypeInfo {
  family: KeyFamily;
  /** AEAD key length in bytes. */
  keyBytes?: number;
  /** Node's cipher name for AEAD types. */
  cipher?: 'aes-128-gcm' | 'aes-256-gcm' | 'chacha20-poly1305';
  /** OpenSSL curve name for ECDSA types, and the name a key read shows. */
  curve?: { openssl: string; display: string; bits: number };
  rsaBits?: number;
}

export const KEY_TYPES: Readonly<Record<KeyTypeName, KeyTypeInfo>> = {
  'aes128-gcm96': { family: 'aead', keyBytes: 16, cipher: 'aes-128-gcm' },
  'aes256-gcm96': { family: 'aead', keyBytes: 32, cipher: 'aes-256-gcm' },
  'chacha20-poly1305': { family: 'aead', keyBytes: 32, cipher: 'chacha20-poly1305' },
  ed25519: { family: 'ed25519' },
  'ecdsa-p256': { family: 'ecdsa', curve: { openssl: 'prime256v1', display: 'P-256', bits: 256 } },
  'ecdsa-p384': { family: 'ecdsa', curve: { openssl: 'secp384r1', display: 'P-384', bits: 384 } },
  'ecdsa-p521': { family: 'ecdsa', curve: { openssl: 'secp521r1', display: 'P-521', bits: 521 } },
  'rsa-2048': { family: 'rsa', rsaBits: 2048 },
  'rsa-3072': { family: 'rsa', rsaBits: 3072 },
  'rsa-4096': { family: 'rsa', rsaBits: 4096 },
  hmac: { family: 'hmac' },
};

export const isKeyType = (name: string): name is KeyTypeName => Object.hasOwn(KEY_TYPES, name);

export const supportsEncryption = (type: KeyTypeName) => ['aead', 'rsa'].includes(KEY_TYPES[type].family);
export const supportsSigning = (type: KeyTypeName) => ['ed25519', 'ecdsa', 'rsa'].includes(KEY_TYPES[type].family);
export const supportsDerivation = (type: KeyTypeName) => ['aead', 'ed25519'].includes(KEY_TYPES[type].family);
export const supportsAssociatedData = (type: KeyTypeName) => KEY_TYPES[type].family === 'aead';
/** ECDSA and RSA sign a digest of the input; ed25519 signs the input itself. */
export const hashesSignatureInput = (type: KeyTypeName) => ['ecdsa', 'rsa'].includes(KEY_TYPES[type].family);

/** The real service's bounds on an `hmac` key's `key_size`, in bytes. */
export const HMAC_MIN_KEY_BYTES = 32;
export const HMAC_MAX_KEY_BYTES = 512;
