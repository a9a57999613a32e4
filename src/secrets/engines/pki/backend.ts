import type { EngineFactory } from '../../context.js';
import type { LeaseRecord } from '../../framework/types.js';
import type { MountStorage } from '../../storage/mount-storage.js';
import { readBundle, serialOf, type RevocationRecord } from './ca-store.js';
import { createEngine, type PkiEngine } from './engine.js';
import { rfc3339Nano } from './issue.js';
import { KeyPool } from './key-pool.js';
import { caPaths } from './paths-ca.js';
import { certificatePaths } from './paths-certs.js';
import { configPaths } from './paths-config.js';
import { tidyPaths } from './paths-tidy.js';
import { revokeSerial } from './revocation.js';
import { storageSerial } from './x509.js';

/** Keys kept ready per key type and size. 20 serves a burst of 20 issues without generating. */
export const DEFAULT_KEY_POOL_SIZE = 20;

/**
 * The certificate authority engine: one CA per mount (the spec's single-issuer engine), roles,
 * issuance and signing checked against role policy, revocation with a CRL. Certificates are
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
      paths: [...caPaths(engine), ...certificatePaths(engine), ...configPaths(engine), ...tidyPaths(engine)],
      revokeLease: (lease, storage) => revokeLease(engine, lease, storage),
      close: () => keys.close(),
    };
  };

/** A certificate's lease revokes the certificate; the root's lease marks the root revoked. */
async function revokeLease(engine: PkiEngine, lease: LeaseRecord, storage: MountStorage): Promise<void> {
  const data = lease.revokeData as { serial_number?: string; root_serial?: string };
  if (data.serial_number) {
    await revokeSerial(engine, storage, lease.mountUuid, data.serial_number);
    return;
  }
  if (data.root_serial) {
    const serial = storageSerial(data.root_serial);
    const current = readBundle(storage)?.certificate;
    if (!current || storageSerial(serialOf(current)) !== serial || storage.get(`revoked/${serial}`)) return;
    const now = engine.now();
    storage.put(`revoked/${serial}`, {
      revocation_time: Math.floor(now.getTime() / 1000),
      revocation_time_rfc3339: rfc3339Nano(now),
    } satisfies RevocationRecord);
  }
}
