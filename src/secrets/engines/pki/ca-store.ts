import { AsnConvert } from '@peculiar/asn1-schema';
import * as asn from '@peculiar/asn1-x509';
import { ApiError, badRequest } from '../../../core/errors.js';
import { parseDurationSeconds } from '../../../core/duration.js';
import type { MountStorage } from '../../storage/mount-storage.js';
import { loadKey } from './keys.js';
import { LocalSigner, type CaSigner } from './signer.js';
import { colonSerial, keyIdentifier, pemBlocks, signCrl, storageSerial, toPem, type RevokedEntry } from './x509.js';

/**
 * The engine's storage layout inside its mount (keys of `request.storage`):
 *   config/ca_bundle   the CA: certificate, key (or, later, a managed key reference), chain above it
 *   ca                 the CA certificate that stays readable after the root is deleted
 *   certs/<serial>     issued and CA certificates (serials in hyphen form)
 *   revoked/<serial>   revocation times
 *   crl                the current CRL (DER, base64) and its number
 *   config/urls, config/crl, roles/<name>, tidy_status
 */
export interface CaBundle {
  certificate: string | null;
  /** PKCS#8 PEM of a local key. A managed key would be referenced here instead. */
  privateKey: string | null;
  /** CA certificates above this one (intermediate → root), PEM. */
  chain: string[];
}

export interface StoredCert {
  certificate: string;
  /** NotAfter, unix milliseconds (tidy and revoke read it without parsing). */
  notAfter: number;
}

export interface RevocationRecord {
  revocation_time: number;
  revocation_time_rfc3339: string;
}

export interface CrlConfig {
  expiry: string;
  disable: boolean;
}

export interface UrlConfig {
  issuing_certificates: string[];
  crl_distribution_points: string[];
  ocsp_servers: string[];
}

export interface CrlRecord {
  der: string;
  number: number;
}

export const NO_CA_MESSAGE = 'could not fetch the CA certificate (was one set?): backend must be configured with a CA certificate/key';

/** A CA able to sign: its certificate parsed, its signer, and what issued certificates copy from it. */
export interface LoadedCa {
  certificatePem: string;
  chain: string[];
  signer: CaSigner;
  subject: asn.Name;
  keyId: Buffer;
  notAfter: Date;
  /** pathLenConstraint; undefined for none. */
  pathLength: number | undefined;
  selfSigned: boolean;
  serial: string;
}

export function readBundle(storage: MountStorage): CaBundle | undefined {
  return storage.get<CaBundle>('config/ca_bundle');
}

export function parseCertificate(pem: string): asn.Certificate {
  const block = pemBlocks(pem).find((item) => item.label === 'CERTIFICATE');
  if (!block) throw new Error('no certificate');
  return AsnConvert.parse(block.der, asn.Certificate);
}

export function certificateExtension<T>(certificate: asn.Certificate, oid: string, type: new () => T): T | undefined {
  const found = certificate.tbsCertificate.extensions?.find((item) => item.extnID === oid);
  return found ? AsnConvert.parse(found.extnValue.buffer, type) : undefined;
}

/** Parsed CAs by certificate + key, so issuing does not re-parse the CA on every request. */
const parsedCas = new Map<string, LoadedCa>();
const PARSED_CA_LIMIT = 32;

/** The CA that signs, or the real service's "no CA" error (a 400 here: no expected failure is a 5xx). */
export function loadCa(storage: MountStorage, message = NO_CA_MESSAGE): LoadedCa {
  const bundle = readBundle(storage);
  if (!bundle?.certificate || !bundle.privateKey) throw badRequest(message);
  const cacheKey = `${bundle.certificate}\n${bundle.privateKey}\n${bundle.chain.join('\n')}`;
  const cached = parsedCas.get(cacheKey);
  if (cached) return cached;
  const loaded = describeCa(bundle.certificate, bundle.chain, signerFor(bundle.privateKey));
  if (parsedCas.size >= PARSED_CA_LIMIT) parsedCas.delete(parsedCas.keys().next().value as string);
  parsedCas.set(cacheKey, loaded);
  return loaded;
}

/**
 * The signer of a stored CA key. The one place a CA's key becomes a CaSigner: a managed key
 * (PKCS#11, cloud key service) would be a reference stored in the bundle and resolved here.
 */
export function signerFor(privateKeyPem: string): CaSigner {
  return new LocalSigner(loadKey(privateKeyPem));
}

/** A CA as signing code sees it, from its certificate, the chain above it, and its signer. */
export function describeCa(certificatePem: string, chain: string[], signer: CaSigner): LoadedCa {
  const certificate = parseCertificate(certificatePem);
  const constraints = certificateExtension(certificate, asn.id_ce_basicConstraints, asn.BasicConstraints);
  const ski = certificateExtension(certificate, asn.id_ce_subjectKeyIdentifier, asn.SubjectKeyIdentifier);
  const tbs = certificate.tbsCertificate;
  return {
    certificatePem,
    chain,
    signer,
    subject: tbs.subject,
    keyId: ski ? Buffer.from(ski.buffer) : keyIdentifier(signer.publicKey),
    notAfter: tbs.validity.notAfter.getTime(),
    pathLength: constraints?.pathLenConstraint,
    selfSigned: Buffer.from(AsnConvert.serialize(tbs.issuer)).equals(Buffer.from(AsnConvert.serialize(tbs.subject))),
    serial: colonSerial(new Uint8Array(tbs.serialNumber)),
  };
}

/** The full chain of the CA as PEMs: the CA first, then what is above it. */
export function caChain(storage: MountStorage): string[] {
  const bundle = readBundle(storage);
  const ca = bundle?.certificate ?? storage.get<string>('ca');
  if (!ca) return [];
  return [ca, ...(bundle?.certificate ? bundle.chain : [])];
}

export function serialOf(pem: string): string {
  return colonSerial(new Uint8Array(parseCertificate(pem).tbsCertificate.serialNumber));
}

export function notAfterOf(pem: string): number {
  return parseCertificate(pem).tbsCertificate.validity.notAfter.getTime().getTime();
}

/**
 * Builds a CRL from the stored revocations (none while CRLs are disabled). Signing may be
 * remote (a managed key), so this only computes; the caller writes the result.
 */
export async function buildCrl(storage: MountStorage, ca: LoadedCa, now: Date, extra: RevokedEntry[] = []): Promise<CrlRecord> {
  const config = storage.get<CrlConfig>('config/crl');
  const previous = storage.get<CrlRecord>('crl');
  const revoked: RevokedEntry[] = [];
  if (!config?.disable) {
    revoked.push(...extra);
    const own = storageSerial(ca.serial);
    for (const serial of storage.list('revoked/')) {
      // The CA's own expiry is recorded as a revocation but never listed in its CRL.
      if (serial === own) continue;
      const record = storage.get<RevocationRecord>(`revoked/${serial}`);
      if (record)
        revoked.push({ serial: Buffer.from(serial.replace(/-/g, ''), 'hex'), revokedAt: new Date(record.revocation_time * 1000) });
    }
  }
  const expirySeconds = parseDurationSeconds(config?.expiry ?? '72h');
  const number = (previous?.number ?? 0) + 1;
  const der = await signCrl(
    {
      issuer: ca.subject,
      thisUpdate: now,
      nextUpdate: new Date(now.getTime() + expirySeconds * 1000),
      number,
      authorityKeyId: ca.keyId,
      revoked,
    },
    ca.signer,
  );
  return { der: der.toString('base64'), number };
}

export const crlPem = (record: CrlRecord) => toPem(Buffer.from(record.der, 'base64'), 'X509 CRL');

export function storeCert(storage: MountStorage, serialColon: string, pem: string, notAfter: number): void {
  storage.put(`certs/${storageSerial(serialColon)}`, { certificate: pem, notAfter } satisfies StoredCert);
}

export const internalError = (message: string) => new ApiError(500, message, { messages: [`1 error occurred:\n\t* ${message}\n\n`] });
