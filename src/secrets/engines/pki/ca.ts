import { AsnConvert } from '@peculiar/asn1-schema';
import * as asn from '@peculiar/asn1-x509';
import { badRequest } from '../../../core/errors.js';
import { parseDurationSeconds } from '../../../core/duration.js';
import { upstream500 } from '../../framework/errors.js';
import type { PkiEngine } from './engine.js';
import { loadKey } from './keys.js';
import { ManagedCaSigner } from './managed-signer.js';
import { LocalSigner, type CaSigner } from './signer.js';
import type { CrlRecord, IssuerEntry, KeyEntry, LeafNotAfterBehavior, PkiStorage, RevocationRecord } from './storage.js';
import { colonSerial, keyIdentifier, pemBlocks, signCrl, storageSerial, toPem, type RevokedEntry } from './x509.js';

export const NO_CA_MESSAGE = 'could not fetch the CA certificate (was one set?): backend must be configured with a CA certificate/key';

/** A CA able to sign: its certificate parsed, its signer, and what issued certificates copy from it. */
export interface LoadedCa {
  issuerId: string;
  certificatePem: string;
  /** CA certificates above this one (intermediate → root), PEM. */
  chain: string[];
  signer: CaSigner;
  subject: asn.Name;
  keyId: Buffer;
  notAfter: Date;
  /** pathLenConstraint; undefined for none. */
  pathLength: number | undefined;
  selfSigned: boolean;
  serial: string;
  leafNotAfterBehavior: LeafNotAfterBehavior;
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

export function serialOf(pem: string): string {
  return colonSerial(new Uint8Array(parseCertificate(pem).tbsCertificate.serialNumber));
}

export function notAfterOf(pem: string): number {
  return parseCertificate(pem).tbsCertificate.validity.notAfter.getTime().getTime();
}

/**
 * Parsed CAs by issuer + certificate + key, so issuing does not re-parse the CA on every request.
 * Kept per engine: a managed key's signer belongs to its server's managed key service.
 */
const parsedCasByEngine = new WeakMap<PkiEngine, Map<string, LoadedCa>>();
const PARSED_CA_LIMIT = 32;

/**
 * The signer of a stored key, the one place a CA's key becomes a CaSigner: the local key, or the
 * managed key the entry references, signing for the mount as it is configured at the time.
 */
export function signerFor(engine: PkiEngine, key: KeyEntry, mountUuid: string): CaSigner {
  if (key.managed_key) {
    const mount = () => engine.context.mounts.all().find((row) => row.uuid === mountUuid);
    return new ManagedCaSigner(engine.context.managedKeys, key.managed_key, mount);
  }
  return new LocalSigner(loadKey(key.private_key));
}

/** A CA as signing code sees it, from its certificate, the chain above it, and its signer. */
export function describeCa(
  certificatePem: string,
  chain: string[],
  signer: CaSigner,
  issuer?: Pick<IssuerEntry, 'id' | 'leaf_not_after_behavior'>,
): LoadedCa {
  const certificate = parseCertificate(certificatePem);
  const constraints = certificateExtension(certificate, asn.id_ce_basicConstraints, asn.BasicConstraints);
  const ski = certificateExtension(certificate, asn.id_ce_subjectKeyIdentifier, asn.SubjectKeyIdentifier);
  const tbs = certificate.tbsCertificate;
  return {
    issuerId: issuer?.id ?? '',
    certificatePem,
    chain,
    signer,
    subject: tbs.subject,
    keyId: ski ? Buffer.from(ski.buffer) : keyIdentifier(signer.publicKey),
    notAfter: tbs.validity.notAfter.getTime(),
    pathLength: constraints?.pathLenConstraint,
    selfSigned: Buffer.from(AsnConvert.serialize(tbs.issuer)).equals(Buffer.from(AsnConvert.serialize(tbs.subject))),
    serial: colonSerial(new Uint8Array(tbs.serialNumber)),
    leafNotAfterBehavior: issuer?.leaf_not_after_behavior ?? 'err',
  };
}

/** An issuer as a signing CA, or undefined when the mount holds no key for it. */
export function issuerCa(engine: PkiEngine, store: PkiStorage, mountUuid: string, issuer: IssuerEntry): LoadedCa | undefined {
  const key = issuer.key_id ? store.key(issuer.key_id) : undefined;
  if (!key) return undefined;
  const keyText = key.managed_key ? `${mountUuid}\n${JSON.stringify(key.managed_key)}` : key.private_key;
  const cacheKey = `${JSON.stringify(issuer)}\n${keyText}`;
  let parsedCas = parsedCasByEngine.get(engine);
  if (!parsedCas) {
    parsedCas = new Map();
    parsedCasByEngine.set(engine, parsedCas);
  }
  const cached = parsedCas.get(cacheKey);
  if (cached) return cached;
  const loaded = describeCa(issuer.certificate, issuer.ca_chain.slice(1), signerFor(engine, key, mountUuid), issuer);
  if (parsedCas.size >= PARSED_CA_LIMIT) parsedCas.delete(parsedCas.keys().next().value as string);
  parsedCas.set(cacheKey, loaded);
  return loaded;
}

export type IssuerUsage = 'issuing-certificates' | 'crl-signing';

/**
 * The CA an operation signs with: the issuer `ref` names (the default one unless a path or role
 * names another), holding `usage`; otherwise the real service's error (a 400: no expected failure
 * is a 5xx, except the real 500s in the `upstream` dialect).
 */
export function loadCa(
  engine: PkiEngine,
  where: { store: PkiStorage; mountUuid: string },
  ref = 'default',
  usage: IssuerUsage = 'issuing-certificates',
  message = NO_CA_MESSAGE,
): LoadedCa {
  const issuer = where.store.findIssuer(ref);
  // The real service answers a missing CA with a 500 (upstream500: only in the `upstream` dialect).
  if (!issuer) {
    if (ref.trim().toLowerCase() === 'default') throw upstream500(badRequest(message));
    throw upstream500(badRequest(`could not fetch the CA certificate (was one set?): unable to find PKI issuer for reference: ${ref}`));
  }
  if (!issuer.usage.includes(usage)) {
    throw badRequest(
      `could not fetch the CA certificate (was one set?): requested usage ${usage} for issuer [${issuer.id}] ` +
        `but only had usage [${issuer.usage.join(' ')}]`,
    );
  }
  const ca = issuerCa(engine, where.store, where.mountUuid, issuer);
  if (!ca) throw upstream500(badRequest(message));
  return ca;
}

/** The CA chain of the default issuer as PEMs: the CA first, then what is above it. */
export function defaultChain(store: PkiStorage): string[] {
  return store.findIssuer('default')?.ca_chain ?? [];
}

/**
 * Builds an issuer's CRL from the revocations it lists (none while CRLs are disabled). Signing may
 * be remote (a managed key), so this only computes; the caller writes the result.
 */
export async function buildCrl(
  store: PkiStorage,
  ca: LoadedCa,
  now: Date,
  options: { extra?: RevokedEntry[]; hidden?: Set<string> } = {},
): Promise<CrlRecord> {
  const config = store.crlConfig();
  const previous = store.crl(ca.issuerId);
  const revoked: RevokedEntry[] = [];
  if (!config?.disable) {
    revoked.push(...(options.extra ?? []));
    const own = storageSerial(ca.serial);
    for (const serial of store.raw.list('revoked/')) {
      // The CA's own expiry is recorded as a revocation but never listed in its CRL.
      if (serial === own || options.hidden?.has(serial)) continue;
      const record = store.raw.get<RevocationRecord>(`revoked/${serial}`);
      if (record && (record.issuer_id ?? ca.issuerId) === ca.issuerId)
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

/** What is about to change when CRLs are computed ahead of one transaction that writes both. */
export interface CrlChanges {
  /** Revocations about to be removed (tidy), by storage serial. */
  hidden?: Set<string>;
  /** A revocation about to be written, listed by the issuer named. */
  added?: { issuerId: string; entry: RevokedEntry };
  /** An issuer as it is about to be stored (revoked, say). */
  updated?: IssuerEntry;
  /** An issuer about to be deleted. */
  removed?: string;
}

/**
 * Every CRL-signing issuer's CRL, rebuilt (CRL configuration, tidy, issuer changes). Computes
 * only; the caller writes them in the same transaction as the change they reflect.
 */
export async function buildAllCrls(
  engine: PkiEngine,
  store: PkiStorage,
  mountUuid: string,
  now: Date,
  changes: CrlChanges = {},
): Promise<Map<string, CrlRecord>> {
  const built = new Map<string, CrlRecord>();
  const issuers = store
    .issuers()
    .filter((issuer) => issuer.id !== changes.removed)
    .map((issuer) => (issuer.id === changes.updated?.id ? changes.updated : issuer));
  for (const issuer of issuers) {
    if (!issuer.usage.includes('crl-signing')) continue;
    const ca = issuerCa(engine, store, mountUuid, issuer);
    const extra = changes.added?.issuerId === issuer.id ? [changes.added.entry] : [];
    if (ca) built.set(issuer.id, await buildCrl(store, ca, now, { extra, hidden: changes.hidden }));
  }
  return built;
}

export const crlPem = (record: CrlRecord) => toPem(Buffer.from(record.der, 'base64'), 'X509 CRL');
