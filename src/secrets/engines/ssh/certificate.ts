import { randomBytes, sign, type KeyObject } from 'node:crypto';
import { CURVES, WireReader, WireWriter, type SshPublicKey } from './wire.js';

export const USER_CERT = 1;
export const HOST_CERT = 2;

/** What goes into one certificate; times are Unix seconds. */
export interface CertificateRequest {
  key: SshPublicKey;
  serial: bigint;
  certType: typeof USER_CERT | typeof HOST_CERT;
  keyId: string;
  principals: string[];
  validAfter: number;
  validBefore: number;
  criticalOptions: Record<string, string>;
  extensions: Record<string, string>;
  /** The role's `algorithm_signer` (`default`, `rsa-sha2-256`, `rsa-sha2-512`, `ssh-rsa`). */
  algorithm: string;
}

const NODE_CURVE_NAMES: Record<string, string> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

/** Options and extensions: sorted by name; a value is a string inside a string, a flag is empty. */
function tuples(entries: Record<string, string>): Buffer {
  const writer = new WireWriter();
  for (const name of Object.keys(entries).sort()) {
    const value = entries[name] ?? '';
    writer.string(name).string(value === '' ? Buffer.alloc(0) : new WireWriter().string(value).bytes());
  }
  return writer.bytes();
}

/** A random serial as the real service makes them: 64 bits. */
export const newSerial = (): bigint => randomBytes(8).readBigUInt64BE();

/** The RSA signature algorithm a role asks for; `default` means SHA-256. */
function rsaAlgorithm(requested: string): { name: string; hash: string } {
  if (requested === 'rsa-sha2-512') return { name: 'rsa-sha2-512', hash: 'sha512' };
  if (requested === 'ssh-rsa') return { name: 'ssh-rsa', hash: 'sha1' };
  return { name: 'rsa-sha2-256', hash: 'sha256' };
}

/** Signs `data` with the CA key and returns the SSH signature blob (algorithm name and bytes). */
function signatureBlob(ca: KeyObject, data: Buffer, algorithm: string): Buffer {
  switch (ca.asymmetricKeyType) {
    case 'rsa': {
      const chosen = rsaAlgorithm(algorithm);
      return new WireWriter()
        .string(chosen.name)
        .string(sign(chosen.hash, data, ca))
        .bytes();
    }
    case 'ec': {
      const curve = CURVES[NODE_CURVE_NAMES[ca.asymmetricKeyDetails?.namedCurve ?? ''] ?? ''];
      if (!curve) throw new Error('unsupported CA curve');
      const raw = sign(curve.hash, data, { key: ca, dsaEncoding: 'ieee-p1363' });
      const inner = new WireWriter().mpint(raw.subarray(0, curve.size)).mpint(raw.subarray(curve.size)).bytes();
      return new WireWriter().string(`ecdsa-sha2-${curve.sshName}`).string(inner).bytes();
    }
    default:
      return new WireWriter()
        .string('ssh-ed25519')
        .string(sign(null, data, ca))
        .bytes();
  }
}

/** The OpenSSH certificate (PROTOCOL.certkeys) for `request`, signed by `ca`, in authorized_keys form. */
export function signCertificate(ca: KeyObject, caPublic: SshPublicKey, request: CertificateRequest): string {
  const reader = new WireReader(request.key.blob);
  reader.string();
  const certType = `${request.key.type}-cert-v01@openssh.com`;
  const principals = new WireWriter();
  for (const principal of request.principals) principals.string(principal);
  const body = new WireWriter()
    .string(certType)
    .string(randomBytes(32))
    .raw(reader.rest())
    .uint64(request.serial)
    .uint32(request.certType)
    .string(request.keyId)
    .string(principals.bytes())
    .uint64(BigInt(Math.max(0, request.validAfter)))
    .uint64(BigInt(Math.max(0, request.validBefore)))
    .string(tuples(request.criticalOptions))
    .string(tuples(request.extensions))
    .string(Buffer.alloc(0))
    .string(caPublic.blob)
    .bytes();
  const certificate = Buffer.concat([body, new WireWriter().string(signatureBlob(ca, body, request.algorithm)).bytes()]);
  return `${certType} ${certificate.toString('base64')}\n`;
}
