import type { KeyObject } from 'node:crypto';
import type { SecretsContext } from '../../context.js';
import type { LogicalResponse, RawBody } from '../../framework/types.js';
import { MountStorage } from '../../storage/mount-storage.js';
import type { LoadedCa } from './ca.js';
import type { KeyPool } from './key-pool.js';
import { PkiStorage } from './storage.js';
import { exportPrivateKey } from './keys.js';
import { colonSerial, toPem } from './x509.js';

/** What every PKI path handler shares: the secrets context, the key pool, one lock per mount. */
export interface PkiEngine {
  readonly context: SecretsContext;
  readonly keys: KeyPool;
  now(): Date;
  /**
   * Runs `work` alone for the mount. CA changes, revocations and CRL builds await signing and
   * then write; two of them interleaving would lose a CRL entry.
   */
  exclusive<T>(mountUuid: string, work: () => Promise<T>): Promise<T>;
  /** Runs synchronous writes in one SQLite transaction against the mount's storage. */
  commit<T>(mountUuid: string, write: (storage: PkiStorage) => T): T;
}

export function createEngine(context: SecretsContext, keys: KeyPool): PkiEngine {
  const tails = new Map<string, Promise<unknown>>();
  return {
    context,
    keys,
    now: () => context.clock.now(),
    exclusive<T>(mountUuid: string, work: () => Promise<T>): Promise<T> {
      const previous = tails.get(mountUuid) ?? Promise.resolve();
      const next = previous.then(work, work);
      const tail = next.catch(() => undefined);
      tails.set(mountUuid, tail);
      void tail.then(() => {
        if (tails.get(mountUuid) === tail) tails.delete(mountUuid);
      });
      return next;
    },
    commit<T>(mountUuid: string, write: (storage: PkiStorage) => T): T {
      return context.store.db.transaction((tx) => write(new PkiStorage(new MountStorage(tx, mountUuid))));
    },
  };
}

export const raw = (contentType: string, body: string | Buffer): LogicalResponse => ({
  raw: { status: 200, contentType, body } satisfies RawBody,
});
export const noContentRaw: LogicalResponse = { raw: { status: 204, contentType: 'application/octet-stream', body: '' } };

export interface CertificateOutput {
  format: string;
  privateKeyFormat: string;
  der: Buffer;
  serial: Uint8Array;
  notAfter: Date;
  /** The signing CA; undefined for a self-signed root (its issuing CA is itself). */
  ca: LoadedCa | undefined;
  privateKey?: KeyObject;
  /** Include `ca_chain` (issue and sign responses). */
  withChain: boolean;
}

const base64Of = (pem: string) => pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, '');

/** The issued-certificate response: certificate, issuing CA, chain, key, serial, expiration. */
export function certificateData(output: CertificateOutput): Record<string, unknown> {
  const certPem = toPem(output.der, 'CERTIFICATE');
  const issuing = output.ca?.certificatePem ?? certPem;
  const chain = output.ca ? [output.ca.certificatePem, ...output.ca.chain] : [];
  const der = output.format === 'der';
  const keyText = output.privateKey ? exportPrivateKey(output.privateKey, output.privateKeyFormat, output.format) : undefined;
  let certificate = der ? output.der.toString('base64') : certPem;
  if (output.format === 'pem_bundle') {
    // The issuing chain joins the bundle unless the issuer is a self-signed root of this mount.
    const above = output.ca && !output.ca.selfSigned ? chain : [];
    certificate = [keyText, certPem, ...above].filter((part) => part !== undefined).join('\n');
  }
  const data: Record<string, unknown> = {
    certificate,
    issuing_ca: der ? base64Of(issuing) : issuing,
    serial_number: colonSerial(output.serial),
    expiration: Math.floor(output.notAfter.getTime() / 1000),
  };
  if (output.withChain) data.ca_chain = der ? chain.map(base64Of) : chain;
  if (output.privateKey && keyText !== undefined) {
    data.private_key = keyText;
    data.private_key_type = output.privateKey.asymmetricKeyType === 'ec' ? 'ec' : 'rsa';
  }
  return data;
}
