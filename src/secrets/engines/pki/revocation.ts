import { X509Certificate } from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import type { LogicalResponse } from '../../framework/types.js';
import { buildAllCrls, buildCrl, loadCa, NO_CA_MESSAGE } from './ca.js';
import type { PkiEngine } from './engine.js';
import { rfc3339Nano } from './issue.js';
import type { IssuerEntry, PkiStorage, RevocationRecord, StoredCert } from './storage.js';
import { storageSerial } from './x509.js';

/** Rebuilds and stores every issuer's CRL (`crl/rotate`, CRL configuration, issuer changes). */
export async function rotateCrls(engine: PkiEngine, store: PkiStorage, mountUuid: string): Promise<void> {
  await engine.exclusive(mountUuid, async () => {
    const built = await buildAllCrls(engine, store, mountUuid, engine.now());
    engine.commit(mountUuid, (tx) => {
      for (const [id, crl] of built) tx.putCrl(id, crl);
    });
  });
}

/** The issuer that signed a stored certificate: recorded at issuance, else found by signature, else the default. */
function issuerOf(store: PkiStorage, stored: StoredCert): IssuerEntry | undefined {
  const recorded = stored.issuer_id ? store.issuer(stored.issuer_id) : undefined;
  if (recorded) return recorded;
  const cert = new X509Certificate(stored.certificate);
  const signer = store.issuers().find((issuer) => {
    const candidate = new X509Certificate(issuer.certificate);
    return cert.checkIssued(candidate) && cert.verify(candidate.publicKey);
  });
  return signer ?? store.findIssuer('default');
}

/**
 * Revokes one certificate: records the time and rebuilds its issuer's CRL, in that order of work
 * but in one transaction of writes. Revoking again answers the first revocation's times; an
 * expired certificate is left alone (204), as upstream.
 */
export async function revokeSerial(
  engine: PkiEngine,
  store: PkiStorage,
  mountUuid: string,
  serialInput: string,
): Promise<LogicalResponse | undefined> {
  if (serialInput.trim() === '') throw badRequest('The serial number must be provided');
  const serial = storageSerial(serialInput);
  return engine.exclusive(mountUuid, async () => {
    const existing = store.revocation(serial);
    if (existing) return { data: { revocation_time: existing.revocation_time, revocation_time_rfc3339: existing.revocation_time_rfc3339 } };
    const stored = store.cert(serial);
    if (!stored) throw badRequest(`certificate with serial ${serialInput} not found`);
    if (store.issuers().some((issuer) => storageSerial(issuer.serial_number) === serial && issuer.key_id !== ''))
      throw badRequest('adding CA to CRL is not allowed');
    const now = engine.now();
    if (stored.notAfter <= now.getTime() + 2000) return undefined;
    const issuer = issuerOf(store, stored);
    const message = NO_CA_MESSAGE.replace(' (was one set?)', '');
    const ca = loadCa(engine, { store, mountUuid }, issuer?.id ?? 'default', 'crl-signing', message);
    const record: RevocationRecord = {
      revocation_time: Math.floor(now.getTime() / 1000),
      revocation_time_rfc3339: rfc3339Nano(now),
      issuer_id: ca.issuerId,
    };
    const crl = await buildCrl(store, ca, now, { extra: [{ serial: Buffer.from(serial.replace(/-/g, ''), 'hex'), revokedAt: now }] });
    engine.commit(mountUuid, (tx) => {
      tx.putRevocation(serial, record);
      tx.putCrl(ca.issuerId, crl);
    });
    return { data: { revocation_time: record.revocation_time, revocation_time_rfc3339: record.revocation_time_rfc3339 } };
  });
}
