import { X509Certificate } from 'node:crypto';
import type { HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { issuerData } from './authority.js';
import { buildAllCrls } from './ca.js';
import type { PkiEngine } from './engine.js';
import { rfc3339Nano } from './issue.js';
import { revokeSerial, rotateCrls } from './revocation.js';
import { pkiStore, type IssuerEntry, type PkiStorage } from './storage.js';

const ISSUER_REF = { issuer_ref: { type: 'string' as const, description: 'default, an issuer id or name' } };

/** Who in the mount signed this issuer's certificate: itself (a root) and/or another issuer. */
function parentsOf(store: PkiStorage, issuer: IssuerEntry): { selfSigned: boolean; other: IssuerEntry | undefined } {
  const cert = new X509Certificate(issuer.certificate);
  let selfSigned = false;
  let other: IssuerEntry | undefined;
  for (const candidate of store.issuers()) {
    const parent = new X509Certificate(candidate.certificate);
    if (!cert.checkIssued(parent) || !cert.verify(parent.publicKey)) continue;
    if (candidate.id === issuer.id) selfSigned = true;
    else other ??= candidate;
  }
  return { selfSigned, other };
}

/** Revoking certificates and issuers, and rebuilding CRLs. */
export function revokePaths(engine: PkiEngine): PathSpec[] {
  const revoke = (request: HandlerRequest) =>
    revokeSerial(engine, pkiStore(request), request.mount.uuid, request.fields.get<string>('serial_number'));

  const rotate = async (request: HandlerRequest): Promise<LogicalResponse> => {
    await rotateCrls(engine, pkiStore(request), request.mount.uuid);
    return { data: { success: true } };
  };

  /**
   * `issuer/:ref/revoke`: the issuer can no longer issue; its certificate goes on the CRL of the
   * issuer in this mount that signed it. Revoking again answers the issuer as it is.
   */
  const revokeIssuer = (request: HandlerRequest) =>
    engine.exclusive(request.mount.uuid, async (): Promise<LogicalResponse> => {
      const store = pkiStore(request);
      const issuer = store.resolveIssuer(request.params.issuer_ref as string);
      if (issuer.revoked) return { data: issuerData(issuer) };
      const now = engine.now();
      const revoked: IssuerEntry = {
        ...issuer,
        revoked: true,
        usage: issuer.usage.filter((usage) => usage !== 'issuing-certificates'),
        revocation_time: Math.floor(now.getTime() / 1000),
        revocation_time_rfc3339: rfc3339Nano(now),
      };
      const { selfSigned, other } = parentsOf(store, issuer);
      const stored = store.cert(issuer.serial_number);
      const listed = stored?.certificate === issuer.certificate && other !== undefined;
      const record = { revocation_time: revoked.revocation_time, revocation_time_rfc3339: revoked.revocation_time_rfc3339 };
      // The CRLs as they will be: the parent's lists this issuer from now on.
      const entry = { serial: Buffer.from(issuer.serial_number.replace(/:/g, ''), 'hex'), revokedAt: now };
      const added = listed ? { issuerId: other.id, entry } : undefined;
      const crls = await buildAllCrls(engine, store, request.mount.uuid, now, { updated: revoked, added });
      engine.commit(request.mount.uuid, (tx) => {
        tx.putIssuer(revoked);
        if (listed) tx.putRevocation(issuer.serial_number, { ...record, issuer_id: other.id });
        for (const [id, crl] of crls) tx.putCrl(id, crl);
      });
      const warnings: string[] = [];
      if (selfSigned) {
        warnings.push(
          'This issuer is a self-signed (potentially root) certificate. This means it may not be considered revoked if there is not ' +
            "an external, cross-signed variant of this certificate. This issuer's serial number will not appear on its own CRL.",
        );
      }
      if (!other) {
        warnings.push(
          'This issuer lacks another parent issuer within the mount. This means it will not appear on any other CRLs and may not be ' +
            "considered revoked by clients. Consider adding this issuer to its issuer's CRL as well if it is not self-signed.",
        );
      }
      if (store.issuersConfig().default === issuer.id) {
        warnings.push(
          'This issuer is currently configured as the default issuer for this mount; operations such as certificate issuance ' +
            'may not work until a new default issuer is selected.',
        );
      }
      return { data: issuerData(revoked), ...(warnings.length > 0 ? { warnings } : {}) };
    });

  return [
    {
      pattern: 'revoke',
      summary: "Revoke a certificate by serial and rebuild its issuer's CRL.",
      fields: { serial_number: { type: 'string', default: '', description: 'hyphen- or colon-separated serial' } },
      operations: { update: revoke },
    },
    { pattern: 'crl/rotate', summary: "Rebuild every issuer's CRL now.", operations: { read: rotate } },
    {
      pattern: 'issuer/:issuer_ref/revoke',
      summary: 'Revoke an issuer: it stops issuing and joins its parent issuer’s CRL.',
      fields: ISSUER_REF,
      operations: { update: revokeIssuer },
    },
  ];
}
