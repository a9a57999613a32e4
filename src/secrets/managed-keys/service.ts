import { constants, randomBytes, verify } from 'node:crypto';
import { canonical, spell, type Dialect } from '../../core/dialect.js';
import { badRequest, notFound } from '../../core/errors.js';
import { uuid } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { KmsError, reasonOf, type KeyPolicy, type KmsSigner, type SigningAlgorithm } from '../../adapters/kms/types.js';
import type { FieldData } from '../framework/fields.js';
import type { MountInfo } from '../framework/types.js';
import type { MountTable } from '../mounts/mount-table.js';
import { MountStorage } from '../storage/mount-storage.js';
import type { KeyParams, KeyTypeDefinition, KeyTypeEnvironment } from './definition.js';

export const KEY_TYPES = ['pkcs11', 'cloud-a-kms', 'cloud-c-keyvault'] as const;
export type KeyType = (typeof KEY_TYPES)[number];

/** A managed key as stored in the system backend's storage. */
export interface ManagedKeyRecord {
  uuid: string;
  name: string;
  type: KeyType;
  allow_generate_key: boolean;
  allow_replace_key: boolean;
  allow_store_key: boolean;
  any_mount: boolean;
  params: KeyParams;
}

/** What the PKI engine signs with: a key a mount may use, its public half and its signer. */
export interface ManagedKeySigner extends KmsSigner {
  readonly name: string;
  readonly uuid: string;
}

/** The system backend's own storage; managed keys live under `managed-keys/` there. */
const SYSTEM_STORAGE = 'builtin-system';
const recordKey = (type: KeyType, name: string) => `managed-keys/${type}/${name}`;
const idKey = (id: string) => `managed-key-ids/${id}`;

/** Opened signers kept at most (one per managed key in use); the oldest is dropped past it. */
const OPENED_LIMIT = 256;

export const GENERIC_FLAGS = ['allow_generate_key', 'allow_replace_key', 'allow_store_key', 'any_mount'] as const;

const policyOf = (record: Pick<ManagedKeyRecord, 'allow_generate_key' | 'allow_replace_key' | 'allow_store_key'>): KeyPolicy => ({
  allowGenerate: record.allow_generate_key,
  allowReplace: record.allow_replace_key,
  allowStore: record.allow_store_key,
});

/** Node's verify options for a signature made with `algorithm`. */
function verifyOptions(algorithm: SigningAlgorithm) {
  if (algorithm.key === 'ec') return { dsaEncoding: 'der' as const };
  if (algorithm.padding === 'pss') return { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: constants.RSA_PSS_SALTLEN_DIGEST };
  return { padding: constants.RSA_PKCS1_PADDING };
}

/** Verifies `signature` over `data` with the signer's public key, as a relying party would. */
export function verifySignature(signer: KmsSigner, data: Buffer, signature: Buffer): boolean {
  return verify(signer.algorithm.hash, data, { key: signer.publicKey, ...verifyOptions(signer.algorithm) }, signature);
}

/**
 * `sys/managed-keys`: named key configurations that point at a backend (PKCS#11 token, cloud key
 * services), and the check that decides which mount may sign with which key.
 */
export class ManagedKeys {
  constructor(
    private readonly db: Db,
    private readonly mounts: MountTable,
    private readonly types: ReadonlyMap<KeyType, KeyTypeDefinition>,
    private readonly environment: KeyTypeEnvironment,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Keys already found (or generated) in their backend, by type and name, each with the stored
   * record it was opened from: finding a key costs one to three backend calls, signing one. An
   * entry serves only while the record is unchanged (a write changes it, a delete removes it and
   * the entry), and a failed signature drops it so the next call looks the key up again.
   */
  private readonly opened = new Map<string, { fingerprint: string; signer: Promise<KmsSigner> }>();

  private storage(db = this.db): MountStorage {
    return new MountStorage(db, SYSTEM_STORAGE);
  }

  /** The type in a URL (either spelling), or a 400. */
  keyType(word: string): KeyType {
    const type = canonical(word);
    if (!(KEY_TYPES as readonly string[]).includes(type)) throw badRequest(`unsupported managed key type: ${word}`);
    return type as KeyType;
  }

  definition(type: KeyType): KeyTypeDefinition {
    const definition = this.types.get(type);
    if (!definition) throw badRequest(`unsupported managed key type: ${type}`);
    return definition;
  }

  definitions(): KeyTypeDefinition[] {
    return [...this.types.values()];
  }

  get(type: KeyType, name: string): ManagedKeyRecord | undefined {
    return this.storage().get<ManagedKeyRecord>(recordKey(type, name));
  }

  /** The key of that name, whichever type it is. */
  byName(name: string): ManagedKeyRecord | undefined {
    for (const type of KEY_TYPES) {
      const record = this.get(type, name);
      if (record) return record;
    }
    return undefined;
  }

  byId(id: string): ManagedKeyRecord | undefined {
    const entry = this.storage().get<{ type: KeyType; name: string }>(idKey(id));
    return entry ? this.get(entry.type, entry.name) : undefined;
  }

  list(type: KeyType): string[] {
    return this.storage().list(`managed-keys/${type}/`);
  }

  /** Create or update from a request's fields; absent fields keep their stored values. */
  write(type: KeyType, name: string, fields: FieldData): void {
    if (name !== name.toLowerCase()) throw badRequest(`managed key names must be lowercase: "${name}"`);
    const other = KEY_TYPES.filter((candidate) => candidate !== type).find((candidate) => this.get(candidate, name));
    if (other) throw badRequest(`a managed key named "${name}" already exists with type ${spell(other, this.dialect)}`);
    const stored = this.get(type, name);
    const flag = (flagName: (typeof GENERIC_FLAGS)[number]) =>
      fields.has(flagName) ? fields.get<boolean>(flagName) : (stored?.[flagName] ?? false);
    const flags = {
      allow_generate_key: flag('allow_generate_key'),
      allow_replace_key: flag('allow_replace_key'),
      allow_store_key: flag('allow_store_key'),
      any_mount: flag('any_mount'),
    };
    const params = this.definition(type).params(fields, stored?.params, policyOf(flags), this.environment);
    const record: ManagedKeyRecord = { uuid: stored?.uuid ?? uuid(), name, type, ...flags, params };
    this.db.transaction((tx) => {
      this.storage(tx).put(recordKey(type, name), record);
      this.storage(tx).put(idKey(record.uuid), { type, name });
    });
    this.opened.delete(recordKey(type, name));
  }

  /** The read response: generic flags, the type's fields (secrets masked), name, type and `UUID`. */
  wire(record: ManagedKeyRecord): Record<string, unknown> {
    const data: Record<string, unknown> = {
      UUID: record.uuid,
      allow_generate_key: record.allow_generate_key,
      allow_replace_key: record.allow_replace_key,
      allow_store_key: record.allow_store_key,
      any_mount: record.any_mount,
      ...this.definition(record.type).wire(record.params),
      name: record.name,
      type: spell(record.type, this.dialect),
    };
    return Object.fromEntries(Object.entries(data).sort(([a], [b]) => a.localeCompare(b)));
  }

  /** Refused while a mount lists the key in `allowed_managed_keys`. */
  delete(type: KeyType, name: string): void {
    const record = this.get(type, name);
    if (!record) return;
    const user = this.mounts.all().find((mount) => this.listedBy(mount.config, record));
    if (user)
      throw badRequest(`managed key "${name}" is still listed in allowed_managed_keys of mount ${user.path}; remove it there first`);
    this.db.transaction((tx) => {
      this.storage(tx).delete(recordKey(type, name));
      this.storage(tx).delete(idKey(record.uuid));
    });
    this.opened.delete(recordKey(type, name));
  }

  private listedBy(config: Record<string, unknown>, record: ManagedKeyRecord): boolean {
    const allowed = config['allowed_managed_keys'];
    return Array.isArray(allowed) && (allowed.includes(record.name) || allowed.includes(record.uuid));
  }

  /** Connects to the backend and finds the key (generating it when allowed); backend refusals are 400s. */
  async open(record: ManagedKeyRecord): Promise<KmsSigner> {
    try {
      return await this.definition(record.type).open(record.params, policyOf(record), this.environment);
    } catch (error) {
      throw badRequest(`${record.type} backend: ${reasonOf(error)}`);
    }
  }

  /** The opened signer of `record`: the kept one while the record is unchanged, else opened now and kept. */
  private signerOf(record: ManagedKeyRecord): { signer: Promise<KmsSigner>; kept: boolean } {
    const key = recordKey(record.type, record.name);
    const fingerprint = JSON.stringify(record);
    const found = this.opened.get(key);
    if (found?.fingerprint === fingerprint) return { signer: found.signer, kept: true };
    const signer = this.open(record);
    this.opened.delete(key);
    this.opened.set(key, { fingerprint, signer });
    const oldest = this.opened.keys().next().value;
    if (this.opened.size > OPENED_LIMIT && oldest !== undefined) this.opened.delete(oldest);
    // A failed open is not kept: the next call tries again.
    signer.catch(() => this.forget(record, signer));
    return { signer, kept: false };
  }

  /** Drops the kept signer of `record` (if it is still `signer`), so the next call finds the key afresh. */
  private forget(record: ManagedKeyRecord, signer: Promise<KmsSigner>): void {
    const key = recordKey(record.type, record.name);
    if (this.opened.get(key)?.signer === signer) this.opened.delete(key);
  }

  /**
   * Signs `data` with the key: with the kept signer, and when that fails (the key went from the
   * backend, a session expired) once more after finding the key again, as a first call would.
   */
  private async signWith(record: ManagedKeyRecord, data: Buffer): Promise<{ signer: KmsSigner; signature: Buffer }> {
    const first = this.signerOf(record);
    if (first.kept) {
      try {
        const signer = await first.signer;
        return { signer, signature: await signer.sign(data) };
      } catch {
        this.forget(record, first.signer);
      }
    }
    const opening = first.kept ? this.signerOf(record).signer : first.signer;
    const signer = await opening;
    try {
      return { signer, signature: await signer.sign(data) };
    } catch (error) {
      this.forget(record, opening);
      if (error instanceof KmsError) throw badRequest(`${record.type} backend: ${error.message}`);
      throw badRequest(`${record.type} backend: ${reasonOf(error)}`);
    }
  }

  /** `test/sign`: find or generate the key, sign a random message, verify it with the public key. */
  async testSign(type: KeyType, name: string): Promise<void> {
    const record = this.get(type, name);
    if (!record) throw notFound();
    const message = randomBytes(64);
    const { signer, signature } = await this.signWith(record, message);
    if (!verifySignature(signer, message, signature))
      throw badRequest(`${record.type} backend: the signature does not verify with the key's public key`);
  }

  /**
   * For engines (PKI) that sign with a key they did not generate: the key by name or id, if the
   * mount may use it (`any_mount`, or the mount's `allowed_managed_keys` lists it), ready to sign.
   */
  async signerFor(reference: { name?: string; id?: string }, mount: Pick<MountInfo, 'path' | 'config'>): Promise<ManagedKeySigner> {
    const record = reference.id ? this.byId(reference.id) : reference.name ? this.byName(reference.name) : undefined;
    const label = reference.id ?? reference.name ?? '';
    if (!reference.id && !reference.name) throw badRequest('missing managed_key_name or managed_key_id');
    if (!record) throw badRequest(`no managed key found with ${reference.id ? 'id' : 'name'} "${label}"`);
    if (!record.any_mount && !this.listedBy(mount.config, record)) {
      throw badRequest(
        `managed key "${record.name}" is not allowed on mount ${mount.path}: ` +
          "set any_mount on the key or list it in the mount's allowed_managed_keys",
      );
    }
    const opening = this.signerOf(record).signer;
    const signer = await opening;
    return {
      name: record.name,
      uuid: record.uuid,
      publicKey: signer.publicKey,
      algorithm: signer.algorithm,
      // Never retried with a key found afresh: what is signed must match the public key above.
      sign: async (data) => {
        try {
          return await signer.sign(data);
        } catch (error) {
          this.forget(record, opening);
          if (error instanceof KmsError) throw badRequest(`${record.type} backend: ${error.message}`);
          throw badRequest(`${record.type} backend: ${reasonOf(error)}`);
        }
      },
    };
  }

  async close(): Promise<void> {
    this.opened.clear();
    await Promise.all([...this.types.values()].map((definition) => definition.close()));
  }
}
