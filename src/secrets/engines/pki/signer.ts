import { createPublicKey, sign, type KeyObject } from 'node:crypto';
import { AlgorithmIdentifier } from '@peculiar/asn1-x509';
import type { SigningAlgorithm } from '../../../adapters/kms/types.js';
import { describeKey } from './keys.js';

/** A signature algorithm as X.509 names it, with the digest it uses. */
export interface SignatureAlgorithm {
  oid: string;
  hash: 'sha256' | 'sha384' | 'sha512';
}

/**
 * What a CA signs with. Certificates, CRLs and CSRs are assembled here and only their bytes go
 * to `sign`, so a key held elsewhere (a PKCS#11 token, a cloud key service: managed keys) can
 * stand in for the local key by implementing these three members.
 */
export interface CaSigner {
  readonly algorithm: SignatureAlgorithm;
  readonly publicKey: KeyObject;
  sign(data: Uint8Array): Promise<Buffer>;
}

const RSA_SHA256 = '1.2.840.113549.1.1.11';
const RSA_PSS = '1.2.840.113549.1.1.10';
/**
 * RSASSA-PSS-params for SHA-256: hash SHA-256, MGF1 with SHA-256, salt length 32 (the digest's,
 * which is what the PKCS#11 and key-service adapters sign with). Fixed bytes: it is one structure.
 */
const PSS_SHA256_PARAMS = Buffer.from(
  '3034a00f300d06096086480165030402010500a11c301a06092a864886f70d010108300d06096086480165030402010500a203020120',
  'hex',
);
const ECDSA_BY_BITS: Record<number, SignatureAlgorithm> = {
  224: { oid: '1.2.840.10045.4.3.2', hash: 'sha256' },
  256: { oid: '1.2.840.10045.4.3.2', hash: 'sha256' },
  384: { oid: '1.2.840.10045.4.3.3', hash: 'sha384' },
  521: { oid: '1.2.840.10045.4.3.4', hash: 'sha512' },
};

/** The algorithm a CA key signs with: SHA-256 with RSA, ECDSA with the curve's matching digest. */
export function signatureAlgorithmFor(publicKey: KeyObject): SignatureAlgorithm {
  const { type, bits } = describeKey(publicKey);
  if (type === 'rsa') return { oid: RSA_SHA256, hash: 'sha256' };
  const found = ECDSA_BY_BITS[bits];
  if (type === 'ec' && found) return found;
  throw new Error(`unsupported CA key type ${type}`);
}

/**
 * The X.509 algorithm of signatures a key backend makes (managed keys): PKCS#1 v1.5 and PSS with
 * SHA-256, ECDSA with the backend's digest; anything else is the caller's error, as text.
 */
export function signatureAlgorithmOfBackend(algorithm: SigningAlgorithm): SignatureAlgorithm | string {
  if (algorithm.key === 'ec') {
    const oid = { sha256: '1.2.840.10045.4.3.2', sha384: '1.2.840.10045.4.3.3', sha512: '1.2.840.10045.4.3.4' }[algorithm.hash];
    return { oid, hash: algorithm.hash };
  }
  if (algorithm.hash !== 'sha256') return `RSA signatures with ${algorithm.hash} are not supported for a CA key`;
  return { oid: algorithm.padding === 'pss' ? RSA_PSS : RSA_SHA256, hash: 'sha256' };
}

/** The AlgorithmIdentifier for a signature: RSA carries an explicit NULL, PSS its parameters, ECDSA none. */
export function algorithmIdentifier(algorithm: SignatureAlgorithm): AlgorithmIdentifier {
  if (algorithm.oid === RSA_SHA256) return new AlgorithmIdentifier({ algorithm: algorithm.oid, parameters: null });
  if (algorithm.oid === RSA_PSS) {
    return new AlgorithmIdentifier({ algorithm: algorithm.oid, parameters: new Uint8Array(PSS_SHA256_PARAMS).buffer });
  }
  return new AlgorithmIdentifier({ algorithm: algorithm.oid });
}

/** The CA's key held in the mount's storage, signing natively (every curve, P-224 included). */
export class LocalSigner implements CaSigner {
  readonly publicKey: KeyObject;
  readonly algorithm: SignatureAlgorithm;

  constructor(private readonly privateKey: KeyObject) {
    this.publicKey = createPublicKey(privateKey);
    this.algorithm = signatureAlgorithmFor(this.publicKey);
  }

  async sign(data: Uint8Array): Promise<Buffer> {
    // ECDSA signatures come out DER-encoded, the form X.509 and CRLs carry.
    return sign(this.algorithm.hash, data, this.privateKey);
  }
}
