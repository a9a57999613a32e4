import { X509Certificate, createPrivateKey, createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import * as asn from '@peculiar/asn1-x509';
import { badRequest } from '../../../core/errors.js';
import type { FieldSpec, HandlerRequest } from '../../framework/types.js';
import { buildCrl, certificateExtension, describeCa, parseCertificate, signerFor } from './ca.js';
import type { PkiEngine } from './engine.js';
import { describeKey, resolveKeySpec, samePublicKey, storeKey, type KeyType } from './keys.js';
import { ManagedCaSigner, managedKeyReference } from './managed-signer.js';
import type { CaSigner } from './signer.js';
import { LocalSigner } from './signer.js';
import { checkName, newIssuerEntry, pkiStore, type IssuerEntry, type KeyEntry, type PkiStorage, type UrlConfig } from './storage.js';
import { pemBlocks, serialHex, toPem } from './x509.js';

/**
 * Making and importing keys and issuers: what root and intermediate generation, set-signed,
 * `config/ca`, `issuers/import/*` and `keys/*` share. Path files call this library; none of them
 * imports another.
 */

export const KEY_FIELDS: Record<string, FieldSpec> = {
  key_type: { type: 'string', default: 'rsa', description: 'rsa or ec' },
  key_bits: { type: 'int', default: 0, description: 'key size (0: 2048 for rsa, 256 for ec)' },
  key_name: { type: 'string', default: '', description: 'a name for the new key' },
  key_ref: { type: 'string', default: 'default', description: 'existing: the key to use' },
  managed_key_name: { type: 'string', default: '', description: 'kms: the managed key that holds the CA key, by name' },
  managed_key_id: { type: 'string', default: '', description: 'kms: the managed key that holds the CA key, by UUID' },
};

export type GenerationType = 'internal' | 'exported' | 'kms' | 'existing';
const GENERATE_TYPES: GenerationType[] = ['internal', 'exported', 'kms', 'existing'];

/** `internal`, `exported`, `kms` (the key stays in a managed key's backend) or `existing` (key_ref). */
export function generationType(request: HandlerRequest, allowed: GenerationType[] = GENERATE_TYPES): GenerationType {
  const type = request.params.type as GenerationType;
  if (!allowed.includes(type)) throw badRequest('the "exported" path parameter must be "internal", "exported" or "kms"');
  return type;
}

/** A CA key: its signer, its stored entry, and whether the entry is new (to be written with the issuer). */
export interface CaKey {
  signer: CaSigner;
  /** The local key; undefined for `kms`, whose key never leaves its backend. */
  local: KeyObject | undefined;
  entry: KeyEntry;
  isNew: boolean;
}

const keyNameTaken = (store: PkiStorage) => (name: string) => store.findKey(name) !== undefined;

export function localKeyEntry(key: KeyObject, name: string): KeyEntry {
  const { type, bits } = describeKey(key);
  return { id: randomUUID(), name, type, bits, private_key: storeKey(key) };
}

/** The key a generate request asks for: a new pool key, the managed key it names, or an existing key. */
export async function caKeyFor(engine: PkiEngine, request: HandlerRequest, store: PkiStorage, type: GenerationType): Promise<CaKey> {
  if (type === 'existing') {
    const ref = request.fields.get<string>('key_ref');
    if (ref.trim() === '') throw badRequest('missing argument key_ref for existing type');
    const entry = store.resolveKey(ref);
    return { signer: signerFor(engine, entry, request.mount.uuid), local: undefined, entry, isNew: false };
  }
  const name = checkName('key', request.fields.get<string>('key_name'), keyNameTaken(store));
  if (type === 'kms') {
    const signer = await ManagedCaSigner.open(engine.context.managedKeys, managedKeyReference(request.fields), request.mount);
    const entry: KeyEntry = { id: randomUUID(), name, type: signer.ref.algorithm.key, bits: 0, private_key: '', managed_key: signer.ref };
    return { signer, local: undefined, entry, isNew: true };
  }
  const spec = resolveKeySpec(request.fields.get<string>('key_type'), request.fields.get<number>('key_bits'));
  if (typeof spec === 'string') throw badRequest(spec);
  const key = await engine.keys.take({ type: spec.type as KeyType, bits: spec.bits });
  return { signer: new LocalSigner(key), local: key, entry: localKeyEntry(key, name), isNew: true };
}

/** Writes a new key and makes it the default key when there is none. */
export function writeKey(store: PkiStorage, entry: KeyEntry): void {
  store.putKey(entry);
  if (store.keysConfig().default === '') store.putKeysConfig({ default: entry.id });
}

export interface NewIssuer {
  certificate: string;
  givenChain: string[];
  key: CaKey | undefined;
  name: string;
  /** List the certificate under certs/ (generated roots and set-signed intermediates are, uploads are not). */
  listed: boolean;
  /** Make it the default when `default_follows_latest_issuer` is set. */
  mayFollow: boolean;
}

/**
 * Installs an issuer (and its key when new) with its first CRL, in one transaction; it becomes the
 * default when there is none, or when the mount's default follows the latest issuer.
 */
export async function installIssuer(engine: PkiEngine, request: HandlerRequest, input: NewIssuer): Promise<IssuerEntry> {
  const parsed = new X509Certificate(input.certificate);
  const entry = newIssuerEntry({
    certificate: input.certificate,
    serial_number: serialHex(parsed.serialNumber),
    key_id: input.key?.entry.id ?? '',
    name: input.name,
    given_chain: input.givenChain,
    ca_chain: [input.certificate, ...input.givenChain],
  });
  // A certificate without the CRLSign key usage cannot sign CRLs, whatever the issuer says.
  if (!hasCrlSign(input.certificate)) entry.usage = entry.usage.filter((usage) => usage !== 'crl-signing');
  const store = pkiStore(request);
  const ca = input.key ? describeCa(input.certificate, input.givenChain, input.key.signer, entry) : undefined;
  const crl = ca && entry.usage.includes('crl-signing') ? await buildCrl(store, ca, engine.now()) : undefined;
  engine.commit(request.mount.uuid, (tx) => {
    if (input.key?.isNew) writeKey(tx, input.key.entry);
    tx.putIssuer(entry);
    const config = tx.issuersConfig();
    if (config.default === '' || (input.mayFollow && config.default_follows_latest_issuer))
      tx.putIssuersConfig({ ...config, default: entry.id });
    if (input.listed) tx.storeCert(serialHex(parsed.serialNumber), input.certificate, new Date(parsed.validTo).getTime(), undefined);
    if (crl) tx.putCrl(entry.id, crl);
    tx.rebuildChains();
  });
  return pkiStore(request).issuer(entry.id) ?? entry;
}

export function hasCrlSign(pem: string): boolean {
  const usage = certificateExtension(parseCertificate(pem), asn.id_ce_keyUsage, asn.KeyUsage);
  return usage ? (usage.toNumber() & asn.KeyUsageFlags.cRLSign) !== 0 : false;
}

export function isCaCertificate(pem: string): boolean {
  return certificateExtension(parseCertificate(pem), asn.id_ce_basicConstraints, asn.BasicConstraints)?.cA === true;
}

/** The certificates in a PEM text; one that does not parse is the caller's error, never a 500. */
export function certificatesIn(text: string): string[] {
  return pemBlocks(text)
    .filter((block) => block.label === 'CERTIFICATE' || block.label === 'X509 CERTIFICATE')
    .map((block) => {
      const pem = toPem(block.der, 'CERTIFICATE');
      try {
        new X509Certificate(pem);
        parseCertificate(pem);
      } catch {
        throw badRequest('a certificate in the input could not be parsed');
      }
      return pem;
    });
}

/** A private key from PEM, or the caller's 400. */
export function parsePrivateKey(pem: string, what: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    throw badRequest(`${what} could not be parsed`);
  }
}

export interface ImportResult {
  mapping: Record<string, string>;
  imported_keys: string[] | null;
  imported_issuers: string[] | null;
  existing_keys: string[] | null;
  existing_issuers: string[] | null;
}

/**
 * Imports the keys and CA certificates of a PEM bundle, each once: a key or certificate the mount
 * already holds is reported as existing. A certificate takes the mount's key whose public half it
 * carries. The first certificate's followers are its chain.
 */
export async function importBundle(engine: PkiEngine, request: HandlerRequest, text: string, keysAllowed: boolean): Promise<ImportResult> {
  const blocks = pemBlocks(text);
  const keyBlocks = blocks.filter((block) => /PRIVATE KEY$/.test(block.label));
  if (keyBlocks.length > 0 && !keysAllowed)
    throw badRequest('private keys found in the PEM bundle but not allowed by the path; use /issuers/import/bundle');
  const certificates = certificatesIn(text);
  if (keyBlocks.length === 0 && certificates.length === 0) throw badRequest('no data found in PEM block');
  for (const pem of certificates) {
    if (!isCaCertificate(pem)) throw badRequest('the given certificate is not marked for CA use and cannot be used with this backend');
  }
  const store = pkiStore(request);
  const result: ImportResult = { mapping: {}, imported_keys: null, imported_issuers: null, existing_keys: null, existing_issuers: null };
  const push = (list: keyof Omit<ImportResult, 'mapping'>, id: string) => (result[list] = [...(result[list] ?? []), id]);
  const known = store.keys().map((entry) => ({ entry, signer: signerFor(engine, entry, request.mount.uuid) }));
  // Every key parses before anything is written: a bad bundle changes nothing.
  const parsedKeys = keyBlocks.map((block, index) =>
    parsePrivateKey(toPem(block.der, block.label), `private key ${index} in the PEM bundle`),
  );
  for (const key of parsedKeys) {
    const publicHalf = createPublicKey(key);
    const found = known.find((item) => samePublicKey(item.signer.publicKey, publicHalf));
    if (found) {
      push('existing_keys', found.entry.id);
      continue;
    }
    const entry = localKeyEntry(key, '');
    engine.commit(request.mount.uuid, (tx) => writeKey(tx, entry));
    known.push({ entry, signer: new LocalSigner(key) });
    push('imported_keys', entry.id);
  }
  for (const [index, pem] of certificates.entries()) {
    const existing = store.issuers().find((entry) => entry.certificate === pem);
    if (existing) {
      result.mapping[existing.id] = existing.key_id;
      push('existing_issuers', existing.id);
      continue;
    }
    const publicKey = new X509Certificate(pem).publicKey;
    const key = known.find((item) => samePublicKey(item.signer.publicKey, publicKey));
    const issuer = await installIssuer(engine, request, {
      certificate: pem,
      givenChain: index === 0 ? certificates.slice(1) : [],
      key: key ? { signer: key.signer, local: undefined, entry: key.entry, isNew: false } : undefined,
      name: '',
      listed: false,
      mayFollow: true,
    });
    result.mapping[issuer.id] = issuer.key_id;
    push('imported_issuers', issuer.id);
  }
  return result;
}

/** An issuer as `issuer/:ref` reads it. */
export function issuerData(issuer: IssuerEntry, urls?: UrlConfig): Record<string, unknown> {
  const data: Record<string, unknown> = {
    issuer_id: issuer.id,
    issuer_name: issuer.name,
    key_id: issuer.key_id,
    certificate: issuer.certificate,
    manual_chain: issuer.manual_chain.length > 0 ? issuer.manual_chain : null,
    ca_chain: issuer.ca_chain,
    leaf_not_after_behavior: issuer.leaf_not_after_behavior,
    usage: issuer.usage.join(','),
    revocation_signature_algorithm: '',
    revoked: issuer.revoked,
    issuing_certificates: urls?.issuing_certificates ?? [],
    crl_distribution_points: urls?.crl_distribution_points ?? [],
    delta_crl_distribution_points: [],
    ocsp_servers: urls?.ocsp_servers ?? [],
    enable_aia_url_templating: false,
  };
  if (issuer.revoked) {
    data.revocation_time = issuer.revocation_time;
    data.revocation_time_rfc3339 = issuer.revocation_time_rfc3339;
  }
  return data;
}
