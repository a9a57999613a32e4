import type { Readable } from 'node:stream';
import { gunzipSync } from 'node:zlib';
import { and, desc, eq } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import { isoTimestamp } from '../../core/clock.js';
import { safeEqual, sha256Hex } from '../../core/crypto.js';
import { ApiError, notFound, unprocessable } from '../../core/errors.js';
import { newId, secretToken } from '../../core/ids.js';
import { GZIP_MAGIC, withSpooledUpload } from '../../core/upload-spool.js';
import type { Db } from '../../store/store.js';
import { policySetVersions } from '../../store/tables.js';
import { RUN_OBJECT_PREFIX } from '../configuration-versions/links.js';
import type { Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { PolicyService } from './service.js';

export type PolicySetVersionRow = typeof policySetVersions.$inferSelect;

/** The largest policy set archive an upload takes. */
const ARCHIVE_LIMIT = 10 * 1024 * 1024;
const GONE = () => notFound('the upload link is unknown or was already used');
const NOT_AN_ARCHIVE = () => unprocessable('the upload must be a gzip-compressed tar archive');
const TOO_LARGE = () => new ApiError(413, `the archive is larger than ${ARCHIVE_LIMIT} bytes`);

export const policySetUploadPath = (id: string, secret: string) => `${RUN_OBJECT_PREFIX}/policy-set-upload/${id}.${secret}`;

/** Whether `bytes` (gunzipped) is a tar archive: blocks of 512 bytes, the first a ustar header or all zeros (empty). */
function isTar(bytes: Buffer): boolean {
  if (bytes.length === 0 || bytes.length % 512 !== 0) return false;
  const first = bytes.subarray(0, 512);
  return first.subarray(257, 262).toString('latin1') === 'ustar' || first.every((byte) => byte === 0);
}

export function policySetVersionResource(row: PolicySetVersionRow, uploadUrl?: string): ResourceObject {
  return {
    id: row.id,
    type: 'policy-set-versions',
    attributes: {
      source: 'tfe-api',
      status: row.status,
      'status-timestamps': row.statusTimestamps,
      error: row.error,
      'error-message': row.errorMessage,
      'ingress-attributes': null,
      'created-at': isoTimestamp(row.createdAt),
      'updated-at': isoTimestamp(row.updatedAt),
    },
    relationships: { 'policy-set': { data: { id: row.policySetId, type: 'policy-sets' } } },
    links: { self: `/api/v2/policy-set-versions/${row.id}`, ...(uploadUrl ? { upload: uploadUrl } : {}) },
  };
}

/**
 * Versions of a policy set uploaded through the API: `POST /policy-sets/:id/versions` makes one
 * `pending` with a one-use upload link; a `.tar.gz` put there makes it `ready` (the archive is
 * kept). Anything else is refused and leaves the version pending.
 */
export class PolicySetVersionService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly policies: PolicyService,
  ) {}

  create(principal: Principal, policySetId: string): { row: PolicySetVersionRow; uploadPath: string } {
    const { row: set } = this.policies.policySet(principal, policySetId, true);
    const at = this.clock.now();
    const secret = secretToken();
    const row: PolicySetVersionRow = {
      id: newId('polsetver'),
      policySetId: set.id,
      status: 'pending',
      statusTimestamps: { 'pending-at': isoTimestamp(at) },
      error: null,
      errorMessage: null,
      archive: null,
      uploadSecretHash: sha256Hex(secret),
      createdAt: at,
      updatedAt: at,
    };
    this.db.insert(policySetVersions).values(row).run();
    return { row, uploadPath: policySetUploadPath(row.id, secret) };
  }

  show(principal: Principal, id: string): PolicySetVersionRow {
    const row = this.db.select().from(policySetVersions).where(eq(policySetVersions.id, id)).get();
    if (!row) throw NOT_FOUND;
    this.policies.policySet(principal, row.policySetId);
    return row;
  }

  /** The newest version of each set, and the newest ready one (the set's `current-version`). */
  versionsOf(policySetId: string): { newest: string | null; current: string | null } {
    const rows = this.db
      .select({ id: policySetVersions.id, status: policySetVersions.status })
      .from(policySetVersions)
      .where(eq(policySetVersions.policySetId, policySetId))
      .orderBy(desc(policySetVersions.createdAt), desc(policySetVersions.id))
      .all();
    return { newest: rows[0]?.id ?? null, current: rows.find((row) => row.status === 'ready')?.id ?? null };
  }

  /** The archive a link carries; the link works once. */
  async upload(id: string, secret: string, body: Readable | Buffer): Promise<void> {
    const row = this.db
      .select()
      .from(policySetVersions)
      .where(and(eq(policySetVersions.id, id), eq(policySetVersions.status, 'pending')))
      .get();
    if (!row?.uploadSecretHash || !safeEqual(row.uploadSecretHash, sha256Hex(secret))) throw GONE();
    const archive = await withSpooledUpload(body, ARCHIVE_LIMIT, TOO_LARGE, (upload) => upload.read(), {
      bytes: GZIP_MAGIC,
      otherwise: NOT_AN_ARCHIVE,
    });
    let unpacked: Buffer;
    try {
      unpacked = gunzipSync(archive, { maxOutputLength: 8 * ARCHIVE_LIMIT });
    } catch {
      throw NOT_AN_ARCHIVE();
    }
    if (!isTar(unpacked)) throw NOT_AN_ARCHIVE();
    const at = this.clock.now();
    const stamp = isoTimestamp(at);
    const statusTimestamps = { ...row.statusTimestamps, 'ingressing-at': stamp, 'ready-at': stamp };
    // The pending check again in the write: two uploads racing on one link, only one lands.
    this.db
      .update(policySetVersions)
      .set({ status: 'ready', statusTimestamps, archive, uploadSecretHash: null, updatedAt: at })
      .where(and(eq(policySetVersions.id, id), eq(policySetVersions.status, 'pending')))
      .run();
  }
}
