import { randomUUID } from 'node:crypto';
import { badRequest } from '../../../core/errors.js';
import type { PathSpec } from '../../framework/types.js';
import { buildAllCrls } from './ca.js';
import { raw, type PkiEngine } from './engine.js';
import { pkiStore, type CrlRecord, type StoredCert } from './storage.js';

interface TidyStatus {
  state: 'Inactive' | 'Running' | 'Finished' | 'Error';
  safety_buffer: number;
  tidy_cert_store: boolean;
  tidy_revoked_certs: boolean;
  time_started: string;
  time_finished: string;
  message: string;
  error: string;
  cert_store_deleted_count: number;
  revoked_cert_deleted_count: number;
}

const INACTIVE: TidyStatus = {
  state: 'Inactive',
  safety_buffer: 0,
  tidy_cert_store: false,
  tidy_revoked_certs: false,
  time_started: '',
  time_finished: '',
  message: '',
  error: '',
  cert_store_deleted_count: 0,
  revoked_cert_deleted_count: 0,
};

/** Removes certificates (and revocations) that expired more than `safety_buffer` ago, by the clock. */
export function tidyPaths(engine: PkiEngine): PathSpec[] {
  return [
    {
      pattern: 'tidy',
      summary: 'Remove expired certificates from storage and the CRL.',
      fields: {
        tidy_cert_store: { type: 'bool', default: false, description: 'remove expired certificates' },
        tidy_revoked_certs: { type: 'bool', default: false, description: 'remove expired revocations' },
        tidy_revocation_list: { type: 'bool', default: false, description: 'alias of tidy_revoked_certs' },
        safety_buffer: { type: 'duration', default: 259200, description: 'how long past expiry to keep entries' },
      },
      operations: {
        update: (request) =>
          engine.exclusive(request.mount.uuid, async () => {
            const buffer = request.fields.get<number>('safety_buffer');
            if (buffer < 1) throw badRequest('safety_buffer must be greater than zero');
            const certStore = request.fields.get<boolean>('tidy_cert_store');
            const revoked = request.fields.get<boolean>('tidy_revoked_certs') || request.fields.get<boolean>('tidy_revocation_list');
            const started = engine.now();
            const cutoff = started.getTime() - buffer * 1000;
            const expired = request.storage
              .list('certs/')
              .filter((serial) => (request.storage.get<StoredCert>(`certs/${serial}`)?.notAfter ?? Infinity) < cutoff);
            const revokedSerials = new Set(request.storage.list('revoked/'));
            const dropCerts = expired.filter((serial) => (revokedSerials.has(serial) ? revoked : certStore));
            const dropRevoked = revoked ? expired.filter((serial) => revokedSerials.has(serial)) : [];
            // The CRLs as they will be once the tidied revocations are gone.
            const crls =
              dropRevoked.length > 0
                ? await buildAllCrls(engine, pkiStore(request), request.mount.uuid, engine.now(), { hidden: new Set(dropRevoked) })
                : new Map<string, CrlRecord>();
            const status: TidyStatus = {
              state: 'Finished',
              safety_buffer: buffer,
              tidy_cert_store: certStore,
              tidy_revoked_certs: revoked,
              time_started: started.toISOString(),
              time_finished: engine.now().toISOString(),
              message: 'Tidying certificate store: checking entry',
              error: '',
              cert_store_deleted_count: dropCerts.filter((serial) => !revokedSerials.has(serial)).length,
              revoked_cert_deleted_count: dropRevoked.length,
            };
            engine.commit(request.mount.uuid, (tx) => {
              for (const serial of dropCerts) tx.raw.delete(`certs/${serial}`);
              for (const serial of dropRevoked) tx.raw.delete(`revoked/${serial}`);
              for (const [id, crl] of crls) tx.putCrl(id, crl);
              tx.raw.put('tidy_status', status);
            });
            // 202 with the full envelope and a warning, as upstream answers.
            const envelope = {
              request_id: randomUUID(),
              lease_id: '',
              renewable: false,
              lease_duration: 0,
              data: null,
              wrap_info: null,
              warnings: ["Tidy operation successfully started. Any information from the operation will be printed to Vault's server logs."],
              auth: null,
            };
            return { raw: { ...raw('application/json', `${JSON.stringify(envelope)}\n`).raw!, status: 202 } };
          }),
      },
    },
    {
      pattern: 'tidy-status',
      summary: 'The outcome of the last tidy.',
      operations: {
        read: (request) => ({ data: { ...(request.storage.get<TidyStatus>('tidy_status') ?? INACTIVE) } }),
      },
    },
  ];
}
