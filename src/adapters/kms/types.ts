import type { KeyObject } from 'node:crypto';

/**
 * The one interface every key backend (PKCS#11 token, cloud key services) is used through: find
 * or create the key once, then sign with it. The private key never leaves the backend.
 */

/** How signatures are made: RSA with PKCS#1 v1.5 or PSS padding, or ECDSA; always over a hash. */
export interface SigningAlgorithm {
  key: 'rsa' | 'ec';
  /** RSA only. */
  padding?: 'pkcs1' | 'pss';
  hash: 'sha256' | 'sha384' | 'sha512';
}

/** A key ready to sign: its public half, the algorithm, and a signer (ECDSA signatures in DER). */
export interface KmsSigner {
  readonly publicKey: KeyObject;
  readonly algorithm: SigningAlgorithm;
  sign(data: Buffer): Promise<Buffer>;
}

/** What the managed key allows the adapter to do to the backend. */
export interface KeyPolicy {
  allowGenerate: boolean;
  allowReplace: boolean;
  allowStore: boolean;
}

/** A refusal from the backend (wrong PIN, unknown key, access denied); the API answers 400 with it. */
export class KmsError extends Error {
  override readonly name = 'KmsError';
}

/** A backend adapter: resolves a managed key's configuration to a signer. */
export interface KmsAdapter<Config> {
  open(config: Config, policy: KeyPolicy): Promise<KmsSigner>;
  /** Frees workers and clients (server shutdown). */
  close(): Promise<void>;
}

/** The backend's reason from any thrown value, never a stack. */
export function reasonOf(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return String(error);
}

/** Clients kept per connection settings (they hold connections and tokens); bounded, oldest dropped. */
export class ClientCache<T> {
  private readonly entries = new Map<string, T>();

  constructor(private readonly limit = 64) {}

  get(key: string, create: () => T): T {
    let found = this.entries.get(key);
    if (found === undefined) {
      found = create();
      this.entries.set(key, found);
      const oldest = this.entries.keys().next().value;
      if (this.entries.size > this.limit && oldest !== undefined) this.entries.delete(oldest);
    }
    return found;
  }

  clear(): T[] {
    const all = [...this.entries.values()];
    this.entries.clear();
    return all;
  }
}
