import type { EngineFactory } from '../../context.js';
import type { LeaseRecord } from '../../framework/types.js';
import type { MountStorage } from '../../storage/mount-storage.js';
import { createEngine, type PkiEngine } from './engine.js';
import { rfc3339Nano } from './issue.js';
import { KeyPool } from './key-pool.js';
import { configPaths } from './paths-config.js';
import { fetchPaths } from './paths-fetch.js';
import { intermediatePaths } from './paths-intermediate.js';
import { issuePaths } from './paths-issue.js';
import { issuerPaths } from './paths-issuers.js';
import { keyPaths } from './paths-keys.js';
import { revokePaths } from './paths-revoke.js';
import { rolePaths } from './paths-roles.js';
import { rootPaths } from './paths-root.js';
import { tidyPaths } from './paths-tidy.js';
import { revokeSerial } from './revocation.js';
import { PkiStorage } from './storage.js';
import { storageSerial } from './x509.js';

/** Keys kept ready per key type and size. 20 serves a burst of 20 issues without generating. */
export const DEFAULT_KEY_POOL_SIZE = 20;

/**
 * The certificate authority engine: issuers and keys per mount (the single-issuer paths act on
 * the default issuer), roles, issuance and signing checked against role policy, revocation with
 * a CRL per issuer. Certificates are
 * assembled with @peculiar/asn1-x509 and signed through a CaSigner; keys come from a pool
 * refilled by worker threads.
 */
export const pkiEngine =
  (poolSize?: number): EngineFactory =>
  (context) => {
    const keys = new KeyPool(poolSize ?? context.config.pkiKeyPool ?? DEFAULT_KEY_POOL_SIZE);
    const engine = createEngine(context, keys);
    return {
      type: 'pki',
      paths: [
        ...rolePaths(engine),
        ...issuePaths(engine),
        ...rootPaths(engine),
        ...intermediatePaths(engine),
        ...revokePaths(engine),
        ...configPaths(engine),
        ...issuerPaths(engine),
        ...keyPaths(engine),
        ...fetchPaths(),
        ...tidyPaths(engine),
      ],
      revokeLease: (lease, storage) => revokeLease(engine, lease, storage),
      close: () => keys.close(),
    };
  };

/** A certificate's lease revokes the certificate; the root's lease marks the root revoked. */
async function revokeLease(engine: PkiEngine, lease: LeaseRecord, storage: MountStorage): Promise<void> {
  const data = lease.revokeData as { serial_number?: string; root_serial?: string };
  const store = new PkiStorage(storage);
  if (data.serial_number) {
    await revokeSerial(engine, store, lease.mountUuid, data.serial_number);
    return;
  }
  if (data.root_serial) {
    const serial = storageSerial(data.root_serial);
    const root = store.issuers().find((issuer) => storageSerial(issuer.serial_number) === serial);
    if (!root || store.revocation(serial)) return;
    const now = engine.now();
    store.putRevocation(serial, {
      revocation_time: Math.floor(now.getTime() / 1000),
      revocation_time_rfc3339: rfc3339Nano(now),
      issuer_id: root.id,
    });
  }
}
