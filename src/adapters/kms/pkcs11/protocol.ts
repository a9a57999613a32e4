/** Messages between the PKCS#11 adapter (main thread) and its workers, which make the blocking calls. */

/** A managed key as the worker needs it: where the key is and what may be done to find it. */
export interface Pkcs11KeyRef {
  /** Absolute path of the PKCS#11 module, from the server's library map (never from a request). */
  libraryPath: string;
  slot: string | null;
  tokenLabel: string | null;
  pin: string;
  keyLabel: string | null;
  /** CKA_ID bytes, hex. */
  keyIdHex: string | null;
  mechanism: number;
  curve: string | null;
  keyBits: number;
  forceRwSession: boolean;
  /**
   * This PIN already logged in to this token in this process. Login state is shared by every
   * worker, so a worker that finds the token logged in trusts it then, instead of logging out
   * (which would invalidate the other workers' key handles) to check the PIN again.
   */
  pinVerified?: boolean;
}

export type WorkerRequest =
  { id: number; op: 'open'; key: Pkcs11KeyRef; allowGenerate: boolean } | { id: number; op: 'sign'; key: Pkcs11KeyRef; data: Uint8Array };

/** The public key as a JWK (RSA n/e or EC x/y), which Node turns into a KeyObject. */
export interface PublicJwk {
  kty: 'RSA' | 'EC';
  n?: string;
  e?: string;
  crv?: string;
  x?: string;
  y?: string;
}

export type WorkerReply =
  { id: number; ok: true; publicJwk?: PublicJwk; signature?: Uint8Array } | { id: number; ok: false; error: string };

/** Mechanisms this adapter signs with (CKM_* values). */
export const CKM = {
  RSA_PKCS: 0x0001,
  RSA_PKCS_OAEP: 0x0009,
  RSA_PKCS_PSS: 0x000d,
  SHA256_RSA_PKCS: 0x0040,
  SHA256_RSA_PKCS_PSS: 0x0043,
  ECDSA: 0x1041,
} as const;

/** Named curves by the names the API accepts, with their DER-encoded OIDs (CKA_EC_PARAMS) and JWK names. */
export const CURVES: Record<string, { oidHex: string; jwk: string; size: number }> = {
  P256: { oidHex: '06082a8648ce3d030107', jwk: 'P-256', size: 32 },
  P384: { oidHex: '06052b81040022', jwk: 'P-384', size: 48 },
  P521: { oidHex: '06052b81040023', jwk: 'P-521', size: 66 },
};
