import { createPrivateKey, type KeyObject } from 'node:crypto';

/** Key types a CA or a leaf can have; `any` exists only on roles, for signing CSRs. */
export type KeyType = 'rsa' | 'ec';

export interface KeySpec {
  type: KeyType;
  bits: number;
}

export const RSA_BITS = [2048, 3072, 4096, 8192] as const;

/** OpenSSL curve names by key size: what Node's key generation takes. */
export const EC_CURVES: Readonly<Record<number, string>> = { 224: 'secp224r1', 256: 'prime256v1', 384: 'secp384r1', 521: 'secp521r1' };

/**
 * Resolves `key_type` + `key_bits` the way the real service does (0 picks the type's default),
 * or returns its error text. `allowAny` is for roles, whose CSR signing accepts any key.
 */
export function resolveKeySpec(type: string, bits: number, allowAny = false): { type: KeyType | 'any'; bits: number } | string {
  switch (type) {
    case 'rsa': {
      const resolved = bits === 0 ? 2048 : bits;
      return (RSA_BITS as readonly number[]).includes(resolved) ? { type, bits: resolved } : `unsupported bit length for RSA key: ${bits}`;
    }
    case 'ec': {
      const resolved = bits === 0 ? 256 : bits;
      return EC_CURVES[resolved] ? { type, bits: resolved } : `unsupported bit length for EC key: ${bits}`;
    }
    case 'any':
      if (allowAny) return { type, bits };
      return `unknown key type ${type}`;
    default:
      return `unknown key type ${type}`;
  }
}

export const specId = (spec: KeySpec) => `${spec.type}-${spec.bits}`;

/** A key's type and size, read from the key itself (CSRs, uploaded CA bundles). */
export function describeKey(key: KeyObject): { type: string; bits: number } {
  const details = key.asymmetricKeyDetails ?? {};
  if (key.asymmetricKeyType === 'rsa' || key.asymmetricKeyType === 'rsa-pss') return { type: 'rsa', bits: details.modulusLength ?? 0 };
  if (key.asymmetricKeyType === 'ec') {
    const bits = Number(Object.entries(EC_CURVES).find(([, curve]) => curve === details.namedCurve)?.[0] ?? 0);
    return { type: 'ec', bits };
  }
  return { type: key.asymmetricKeyType ?? 'unknown', bits: 0 };
}

/**
 * A private key as the real service returns it: `der` is the type's own structure (PKCS#1 for
 * RSA, SEC 1 for EC), `pkcs8` the generic one; PEM-wrapped unless the format is `der`.
 */
export function exportPrivateKey(key: KeyObject, keyFormat: string, format: string): string {
  const type = keyFormat === 'pkcs8' ? 'pkcs8' : key.asymmetricKeyType === 'ec' ? 'sec1' : 'pkcs1';
  if (format === 'der') return key.export({ format: 'der', type }).toString('base64');
  return (key.export({ format: 'pem', type }) as string).trimEnd();
}

/** Stored form of a CA key: PKCS#8 PEM (the mount's storage is the service's own store). */
export const storeKey = (key: KeyObject) => (key.export({ format: 'pem', type: 'pkcs8' }) as string).trimEnd();
export const loadKey = (pem: string) => createPrivateKey(pem);

/** Two keys are the same key pair when their public halves encode the same. */
export const samePublicKey = (a: KeyObject, b: KeyObject) =>
  a.export({ format: 'der', type: 'spki' }).equals(b.export({ format: 'der', type: 'spki' }));
