import { badRequest } from '../../../core/errors.js';
import type { HandlerRequest, LogicalResponse } from '../../framework/types.js';
import type { MountStorage } from '../../storage/mount-storage.js';
import { buildCrl, loadCa, readBundle, serialOf, type RevocationRecord, type StoredCert } from './ca-store.js';
import type { PkiEngine } from './engine.js';
import { rfc3339Nano } from './issue.js';
import { storageSerial } from './x509.js';

/** Rebuilds and stores the CRL (`crl/rotate`, CA changes, CRL configuration). */
export async function rotateCrl(engine: PkiEngine, request: Pick<HandlerRequest, 'storage' | 'mount'>): Promise<void> {
  await engine.exclusive(request.mount.uuid, async () => {
    const ca = loadCa(request.storage);
    const crl = await buildCrl(request.storage, ca, engine.now());
    request.storage.put('crl', crl);
  });
}

/**
 * Revokes one certificate: records the time and rebuilds the CRL, in that order of work but in
 * one transaction of writes. Revoking again answers the first revocation's times; an expired
 * certificate is left alone (204), as upstream.
 */
export async function revokeSerial(
  engine: PkiEngine,
  storage: MountStorage,
  mountUuid: string,
  serialInput: string,
): Promise<LogicalResponse | undefined> {
  if (serialInput.trim() === '') throw badRequest('The serial number must be provided');
  const serial = storageSerial(serialInput);
  return engine.exclusive(mountUuid, async () => {
    const existing = storage.get<RevocationRecord>(`revoked/${serial}`);
    if (existing) return { data: { ...existing } };
    const stored = storage.get<StoredCert>(`certs/${serial}`);
    if (!stored) throw badRequest(`certificate with serial ${serialInput} not found`);
    const bundle = readBundle(storage);
    if (bundle?.certificate && storageSerial(serialOf(bundle.certificate)) === serial) throw badRequest('adding CA to CRL is not allowed');
    const now = engine.now();
    if (stored.notAfter <= now.getTime() + 2000) return undefined;
    const ca = loadCa(storage, 'could not fetch the CA certificate: backend must be configured with a CA certificate/key');
    const record: RevocationRecord = { revocation_time: Math.floor(now.getTime() / 1000), revocation_time_rfc3339: rfc3339Nano(now) };
    const crl = await buildCrl(storage, ca, now, [{ serial: Buffer.from(serial.replace(/-/g, ''), 'hex'), revokedAt: now }]);
    engine.commit(mountUuid, (tx) => {
      tx.put(`revoked/${serial}`, record);
      tx.put('crl', crl);
    });
    return { data: { ...record } };
  });
}
