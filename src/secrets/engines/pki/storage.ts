import { X509Certificate, createPrivateKey, randomUUID } from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import type { MountStorage } from '../../storage/mount-storage.js';
import { describeKey } from './keys.js';
import type { ManagedKeyRef } from './managed-signer.js';
import { withDefaults, type Role } from './role.js';
import { serialHex, storageSerial } from './x509.js';
import { multierror } from '../../framework/errors.js';

/**
 * The engine's storage inside its mount, and the only code that reads or writes it:
 *   config/issuer/<id>   an issuer: its certificate, the key it signs with, chain, usage, name
 *   config/key/<id>      a key: local PKCS#8 PEM, or the managed key that holds it
 *   config/issuers       the default issuer; config/keys the default key
 *   crls/<issuer id>     each issuer's CRL (DER, base64) and its number
 *   certs/<serial>       issued and CA certificates (serials in hyphen form)
 *   revoked/<serial>     revocation times and the issuer whose CRL lists them
 *   config/urls, config/crl, roles/<name>, tidy_status
 * A store written before issuers existed (`config/ca_bundle`, `ca`, `crl`) migrates on first use.
 */
export type LeafNotAfterBehavior = 'err' | 'truncate' | 'permit';
export const ISSUER_USAGES = ['read-only', 'issuing-certificates', 'crl-signing', 'ocsp-signing'] as const;

export interface IssuerEntry {
  id: string;
  name: string;
  /** '' when the mount holds no key for this certificate. */
  key_id: string;
  certificate: string;
  /** Certificates above this one as they were given (import, set-signed); used when the mount holds no parent. */
  given_chain: string[];
  /** This certificate, then its parents: built from the mount's issuers (or `manual_chain`), else the given chain. */
  ca_chain: string[];
  manual_chain: string[];
  leaf_not_after_behavior: LeafNotAfterBehavior;
  usage: string[];
  revoked: boolean;
  revocation_time: number;
  revocation_time_rfc3339: string;
  serial_number: string;
}

export interface KeyEntry {
  id: string;
  name: string;
  type: string;
  bits: number;
  /** PKCS#8 PEM of a local key; '' when the key lives in a managed key's backend. */
  private_key: string;
  managed_key?: ManagedKeyRef;
}

export interface IssuersConfig {
  default: string;
  default_follows_latest_issuer: boolean;
}

export interface StoredCert {
  certificate: string;
  /** NotAfter, unix milliseconds (tidy and revoke read it without parsing). */
  notAfter: number;
  /** The issuer that signed it; absent for certificates stored before issuers existed. */
  issuer_id?: string;
}

export interface RevocationRecord {
  revocation_time: number;
  revocation_time_rfc3339: string;
  /** Whose CRL lists it. */
  issuer_id?: string;
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

/** The store before issuers: one CA bundle per mount. */
interface LegacyBundle {
  certificate: string | null;
  privateKey: string | null;
  managedKey?: ManagedKeyRef;
  chain: string[];
}

export const DEFAULT_REF = 'default';
/** Names of issuers and keys: the real service's GenericNameRegex. */
const NAME = /^\w(([\w.-]+)?\w)?$/;

/** The real service's user errors answer in its multi-error framing. */
const userError = (message: string) => multierror(400, message);

export const newIssuerEntry = (fields: Partial<IssuerEntry> & Pick<IssuerEntry, 'certificate' | 'serial_number'>): IssuerEntry => ({
  id: randomUUID(),
  name: '',
  key_id: '',
  given_chain: [],
  ca_chain: [fields.certificate],
  manual_chain: [],
  leaf_not_after_behavior: 'err',
  usage: [...ISSUER_USAGES],
  revoked: false,
  revocation_time: 0,
  revocation_time_rfc3339: '',
  ...fields,
});

/** A name for a new issuer or key, checked as the real service checks it ('' when none was given). */
export function checkName(kind: 'issuer' | 'key', name: string, taken: (name: string) => boolean): string {
  const trimmed = name.trim();
  if (trimmed === '') return '';
  if (trimmed.toLowerCase() === DEFAULT_REF) throw badRequest(`reserved keyword 'default' can not be used as ${kind} name`);
  if (!NAME.test(trimmed)) throw badRequest(`${kind} name contained invalid characters`);
  if (taken(trimmed)) throw badRequest(`${kind} name already in use`);
  return trimmed;
}

export class PkiStorage {
  private migrated = false;

  constructor(readonly raw: MountStorage) {}

  // ---------- roles ----------

  role(name: string): Role | undefined {
    const stored = this.raw.get<Partial<Role>>(`roles/${name}`);
    return stored ? withDefaults(stored) : undefined;
  }

  hasRole(name: string): boolean {
    return this.raw.get(`roles/${name}`) !== undefined;
  }

  putRole(name: string, role: Role): void {
    this.raw.put(`roles/${name}`, role);
  }

  deleteRole(name: string): void {
    this.raw.delete(`roles/${name}`);
  }

  roleNames(): string[] {
    return this.raw.list('roles/');
  }

  // ---------- issuers ----------

  issuerIds(): string[] {
    this.migrate();
    return this.raw.list('config/issuer/');
  }

  issuer(id: string): IssuerEntry | undefined {
    this.migrate();
    return this.raw.get<IssuerEntry>(`config/issuer/${id}`);
  }

  issuers(): IssuerEntry[] {
    return this.issuerIds()
      .map((id) => this.issuer(id))
      .filter((entry): entry is IssuerEntry => entry !== undefined);
  }

  /** An issuer by `default`, id or name; undefined when nothing matches (the default unset included). */
  findIssuer(ref: string): IssuerEntry | undefined {
    const trimmed = ref.trim();
    if (trimmed.toLowerCase() === DEFAULT_REF) {
      const id = this.issuersConfig().default;
      return id === '' ? undefined : this.issuer(id);
    }
    return this.issuer(trimmed) ?? this.issuers().find((entry) => entry.name === trimmed);
  }

  /** The issuer a reference names, or the real service's 400. */
  resolveIssuer(ref: string): IssuerEntry {
    if (ref.trim() === '') throw badRequest('missing issuer reference');
    const found = this.findIssuer(ref);
    if (found) return found;
    if (ref.trim().toLowerCase() === DEFAULT_REF) throw userError('no default issuer currently configured');
    throw userError(`unable to find PKI issuer for reference: ${ref.trim()}`);
  }

  putIssuer(entry: IssuerEntry): void {
    this.raw.put(`config/issuer/${entry.id}`, entry);
  }

  /** Removes an issuer and its CRL; says whether it was the default (which is then unset). */
  deleteIssuer(id: string): boolean {
    this.raw.delete(`config/issuer/${id}`);
    this.raw.delete(`crls/${id}`);
    const config = this.issuersConfig();
    if (config.default !== id) return false;
    this.putIssuersConfig({ ...config, default: '' });
    return true;
  }

  issuersConfig(): IssuersConfig {
    this.migrate();
    return this.raw.get<IssuersConfig>('config/issuers') ?? { default: '', default_follows_latest_issuer: false };
  }

  putIssuersConfig(config: IssuersConfig): void {
    this.raw.put('config/issuers', config);
  }

  /**
   * Recomputes every issuer's `ca_chain`: its manual chain when set, else parents found among the
   * mount's issuers by signature (a root ends the chain), else the chain it was given.
   */
  rebuildChains(): void {
    const all = this.issuers();
    const parsed = new Map(all.map((entry) => [entry.id, new X509Certificate(entry.certificate)]));
    const parentOf = (entry: IssuerEntry): IssuerEntry | undefined => {
      const cert = parsed.get(entry.id) as X509Certificate;
      if (cert.checkIssued(cert) && cert.verify(cert.publicKey)) return undefined;
      return all.find((candidate) => {
        const parent = parsed.get(candidate.id) as X509Certificate;
        return candidate.id !== entry.id && cert.checkIssued(parent) && cert.verify(parent.publicKey);
      });
    };
    for (const entry of all) {
      let chain: string[];
      if (entry.manual_chain.length > 0) {
        chain = entry.manual_chain.map((id) => all.find((candidate) => candidate.id === id)?.certificate ?? '').filter(Boolean);
      } else {
        chain = [entry.certificate];
        const seen = new Set([entry.id]);
        let current = parentOf(entry);
        while (current && !seen.has(current.id)) {
          seen.add(current.id);
          chain.push(current.certificate);
          current = parentOf(current);
        }
        // No parent here and not a root: the chain it came with.
        const own = parsed.get(entry.id) as X509Certificate;
        if (chain.length === 1 && !own.checkIssued(own)) chain.push(...entry.given_chain);
      }
      if (JSON.stringify(chain) !== JSON.stringify(entry.ca_chain)) this.putIssuer({ ...entry, ca_chain: chain });
    }
  }

  // ---------- keys ----------

  keyIds(): string[] {
    this.migrate();
    return this.raw.list('config/key/');
  }

  key(id: string): KeyEntry | undefined {
    this.migrate();
    return this.raw.get<KeyEntry>(`config/key/${id}`);
  }

  keys(): KeyEntry[] {
    return this.keyIds()
      .map((id) => this.key(id))
      .filter((entry): entry is KeyEntry => entry !== undefined);
  }

  findKey(ref: string): KeyEntry | undefined {
    const trimmed = ref.trim();
    if (trimmed.toLowerCase() === DEFAULT_REF) {
      const id = this.keysConfig().default;
      return id === '' ? undefined : this.key(id);
    }
    return this.key(trimmed) ?? this.keys().find((entry) => entry.name === trimmed);
  }

  resolveKey(ref: string): KeyEntry {
    if (ref.trim() === '') throw badRequest('missing key reference');
    const found = this.findKey(ref);
    if (found) return found;
    if (ref.trim().toLowerCase() === DEFAULT_REF) throw userError('no default key currently configured');
    throw userError(`unable to find PKI key for reference: ${ref.trim()}`);
  }

  putKey(entry: KeyEntry): void {
    this.raw.put(`config/key/${entry.id}`, entry);
  }

  deleteKey(id: string): boolean {
    this.raw.delete(`config/key/${id}`);
    const config = this.keysConfig();
    if (config.default !== id) return false;
    this.raw.put('config/keys', { default: '' });
    return true;
  }

  keysConfig(): { default: string } {
    this.migrate();
    return this.raw.get<{ default: string }>('config/keys') ?? { default: '' };
  }

  putKeysConfig(config: { default: string }): void {
    this.raw.put('config/keys', config);
  }

  // ---------- certificates, revocations, CRLs ----------

  storeCert(serialColon: string, pem: string, notAfter: number, issuerId: string | undefined): void {
    const record: StoredCert = { certificate: pem, notAfter, ...(issuerId ? { issuer_id: issuerId } : {}) };
    this.raw.put(`certs/${storageSerial(serialColon)}`, record);
  }

  cert(serial: string): StoredCert | undefined {
    return this.raw.get<StoredCert>(`certs/${storageSerial(serial)}`);
  }

  revocation(serial: string): RevocationRecord | undefined {
    return this.raw.get<RevocationRecord>(`revoked/${storageSerial(serial)}`);
  }

  putRevocation(serial: string, record: RevocationRecord): void {
    this.raw.put(`revoked/${storageSerial(serial)}`, record);
  }

  crl(issuerId: string): CrlRecord | undefined {
    this.migrate();
    return this.raw.get<CrlRecord>(`crls/${issuerId}`);
  }

  putCrl(issuerId: string, record: CrlRecord): void {
    this.raw.put(`crls/${issuerId}`, record);
  }

  crlConfig(): CrlConfig | undefined {
    return this.raw.get<CrlConfig>('config/crl');
  }

  urls(): UrlConfig | undefined {
    return this.raw.get<UrlConfig>('config/urls');
  }

  // ---------- migration ----------

  /**
   * Turns a store from before issuers (one CA bundle) into one issuer and one key, once: the
   * bundle's key, its certificate (or the certificate kept after the root was deleted), the CRL,
   * and the revocations it listed. The legacy keys are removed last, so a half-done migration
   * runs again from the start.
   */
  private migrate(): void {
    if (this.migrated) return;
    this.migrated = true;
    const bundle = this.raw.get<LegacyBundle>('config/ca_bundle');
    const keptCa = this.raw.get<string>('ca');
    if (!bundle && !keptCa) return;
    let keyId = '';
    if (bundle && (bundle.privateKey || bundle.managedKey)) {
      const key: KeyEntry = {
        id: randomUUID(),
        name: '',
        ...(bundle.managedKey
          ? { type: bundle.managedKey.algorithm.key, bits: 0 }
          : describeKey(createPrivateKey(bundle.privateKey ?? ''))),
        private_key: bundle.privateKey ?? '',
        ...(bundle.managedKey ? { managed_key: bundle.managedKey } : {}),
      };
      this.putKey(key);
      this.putKeysConfig({ default: key.id });
      keyId = key.id;
    }
    const certificate = bundle?.certificate ?? (bundle ? null : keptCa);
    if (certificate) {
      const parsed = new X509Certificate(certificate);
      const issuer = newIssuerEntry({
        certificate,
        serial_number: serialHex(parsed.serialNumber),
        key_id: keyId,
        given_chain: bundle?.chain ?? [],
        ca_chain: [certificate, ...(bundle?.chain ?? [])],
      });
      this.putIssuer(issuer);
      this.putIssuersConfig({ default: issuer.id, default_follows_latest_issuer: false });
      const crl = this.raw.get<CrlRecord>('crl');
      if (crl) this.putCrl(issuer.id, crl);
      for (const serial of this.raw.list('revoked/')) {
        const record = this.raw.get<RevocationRecord>(`revoked/${serial}`);
        if (record && !record.issuer_id) this.raw.put(`revoked/${serial}`, { ...record, issuer_id: issuer.id });
      }
    }
    this.raw.delete('crl');
    this.raw.delete('ca');
    this.raw.delete('config/ca_bundle');
  }
}

/** The engine's storage for a request. */
export const pkiStore = (request: { storage: MountStorage }) => new PkiStorage(request.storage);
