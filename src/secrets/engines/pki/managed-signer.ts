import { createPublicKey, type KeyObject } from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import type { SigningAlgorithm } from '../../../adapters/kms/types.js';
import type { FieldData } from '../../framework/fields.js';
import type { MountInfo } from '../../framework/types.js';
import type { ManagedKeys, ManagedKeySigner } from '../../managed-keys/service.js';
import { samePublicKey } from './keys.js';
import { signatureAlgorithmOfBackend, type CaSigner, type SignatureAlgorithm } from './signer.js';

/**
 * A CA key that lives in a managed key's backend, as the CA bundle stores it: which managed key
 * (by id, which survives a rename), and its public half and algorithm as they were when the CA
 * was made, so signing can check the backend still holds the same key.
 */
export interface ManagedKeyRef {
  id: string;
  name: string;
  /** SPKI PEM. */
  publicKey: string;
  algorithm: SigningAlgorithm;
}

/** The mount a CA belongs to, read when signing so a changed `allowed_managed_keys` applies at once. */
export type MountLookup = () => Pick<MountInfo, 'path' | 'config'> | undefined;

/** The managed key a `kms` generate request names: `managed_key_name` or `managed_key_id`, exactly one. */
export function managedKeyReference(fields: FieldData): { name?: string; id?: string } {
  const name = fields.get<string>('managed_key_name').trim();
  const id = fields.get<string>('managed_key_id').trim();
  if (name === '' && id === '') throw badRequest('missing argument managed_key_name or managed_key_id');
  if (name !== '' && id !== '') throw badRequest('only one argument of managed_key_name or managed_key_id should be specified');
  return id !== '' ? { id } : { name };
}

/** The X.509 algorithm of a managed key's signatures, or a 400 naming the key. */
function x509Algorithm(name: string, algorithm: SigningAlgorithm): SignatureAlgorithm {
  const resolved = signatureAlgorithmOfBackend(algorithm);
  if (typeof resolved === 'string') throw badRequest(`managed key "${name}": ${resolved}`);
  return resolved;
}

/**
 * Signs through the managed key's backend. Each signature asks the managed key service again, so
 * the mount rule (`any_mount` / `allowed_managed_keys`) and the key's current settings apply to
 * every certificate and CRL, not only to the one that made the CA.
 */
export class ManagedCaSigner implements CaSigner {
  readonly publicKey: KeyObject;
  readonly algorithm: SignatureAlgorithm;

  constructor(
    private readonly keys: ManagedKeys,
    readonly ref: ManagedKeyRef,
    private readonly mount: MountLookup,
    private opened?: ManagedKeySigner,
  ) {
    this.publicKey = createPublicKey(ref.publicKey);
    this.algorithm = x509Algorithm(ref.name, ref.algorithm);
  }

  /** Opens the managed key for a mount and describes it for storing in the CA bundle. */
  static async open(
    keys: ManagedKeys,
    reference: { name?: string; id?: string },
    mount: Pick<MountInfo, 'path' | 'config'>,
  ): Promise<ManagedCaSigner> {
    const opened = await keys.signerFor(reference, mount);
    const publicKey = (opened.publicKey.export({ format: 'pem', type: 'spki' }) as string).trimEnd();
    const ref: ManagedKeyRef = { id: opened.uuid, name: opened.name, publicKey, algorithm: opened.algorithm };
    return new ManagedCaSigner(keys, ref, () => mount, opened);
  }

  async sign(data: Uint8Array): Promise<Buffer> {
    const signer = this.opened ?? (await this.reopen());
    // The first signature of a freshly opened key reuses that opening; later ones check again.
    this.opened = undefined;
    return signer.sign(Buffer.from(data));
  }

  private async reopen(): Promise<ManagedKeySigner> {
    const mount = this.mount();
    if (!mount) throw badRequest('the mount of this CA no longer exists');
    const signer = await this.keys.signerFor({ id: this.ref.id }, mount);
    if (!samePublicKey(signer.publicKey, this.publicKey) || JSON.stringify(signer.algorithm) !== JSON.stringify(this.ref.algorithm)) {
      throw badRequest(`managed key "${signer.name}" no longer holds this CA's key: its public key or signing mechanism changed`);
    }
    return signer;
  }
}
