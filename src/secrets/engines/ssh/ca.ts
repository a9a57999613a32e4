import type { KeyObject } from 'node:crypto';
import { SecretsAtRest } from '../../../core/at-rest.js';
import { AT_REST_KEY, serverKey } from '../../../store/server-keys.js';
import type { SecretsContext } from '../../context.js';
import type { MountStorage } from '../../storage/mount-storage.js';
import { parsePrivateKey } from './private-keys.js';
import { publicKeyOf, type SshPublicKey } from './wire.js';

const PUBLIC_PATH = 'config/ca_public_key';
const PRIVATE_PATH = 'config/ca_private_key';

/** The CA's signing key, opened, with its SSH public key. */
export interface SshCa {
  key: KeyObject;
  publicKey: SshPublicKey;
}

/**
 * The mount's CA key pair. The private key is kept sealed under the store's at-rest key (PKCS#8
 * PEM inside), so it is never readable in a row or a dump; opened keys are remembered by their
 * sealed text, so signing does not parse the PEM each time.
 */
export class CaKeys {
  private readonly atRest: SecretsAtRest;
  private readonly opened = new Map<string, SshCa>();

  constructor(context: SecretsContext) {
    this.atRest = new SecretsAtRest(() => serverKey(context.store.sqlite, AT_REST_KEY));
  }

  publicKey(storage: MountStorage): string | undefined {
    return storage.get<{ key: string }>(PUBLIC_PATH)?.key;
  }

  configured(storage: MountStorage): boolean {
    return storage.has(PUBLIC_PATH) || storage.has(PRIVATE_PATH);
  }

  store(storage: MountStorage, key: KeyObject, publicText: string): void {
    const pem = key.export({ format: 'pem', type: 'pkcs8' }).toString();
    storage.put(PUBLIC_PATH, { key: publicText });
    storage.put(PRIVATE_PATH, { sealed: this.atRest.seal(pem) });
  }

  remove(storage: MountStorage): void {
    storage.delete(PUBLIC_PATH);
    storage.delete(PRIVATE_PATH);
  }

  /** The signing key, or undefined when none is configured (or it cannot be opened). */
  signer(storage: MountStorage): SshCa | undefined {
    const sealed = storage.get<{ sealed: string }>(PRIVATE_PATH)?.sealed;
    if (sealed === undefined) return undefined;
    const known = this.opened.get(sealed);
    if (known) return known;
    const pem = this.atRest.open(sealed);
    if (pem === null) return undefined;
    const key = parsePrivateKey(pem);
    const ca = { key, publicKey: publicKeyOf(key) };
    if (this.opened.size > 64) this.opened.clear();
    this.opened.set(sealed, ca);
    return ca;
  }
}
