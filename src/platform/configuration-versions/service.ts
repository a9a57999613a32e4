import type { Readable } from 'node:stream';
import type { Clock } from '../../core/clock.js';
import { isoTimestamp } from '../../core/clock.js';
import { safeEqual, sha256Hex } from '../../core/crypto.js';
import { ApiError, conflict, notFound } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { checkSlug, SlugRejected } from '../../adapters/executor/slug.js';
import { DEFAULT_ARCHIVE_LIMITS } from '../../core/tar-archive.js';
import { OneAtATime } from '../../core/one-at-a-time.js';
import { withSpooledUpload } from '../../core/upload-spool.js';
import type { Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { backingDataDeleted, backingDataMove, type BackingDataAction } from '../backing-data.js';
import * as workspacesRepo from '../workspaces/repo.js';
import type { Located, WorkspaceService } from '../workspaces/service.js';
import { newUploadSecret, UPLOAD_LINK_TTL_MS } from './links.js';
import * as repo from './repo.js';
import type { ConfigurationVersionMeta } from './repo.js';

/** The largest slug an upload link takes (the shared archive limit). */
export const SLUG_UPLOAD_LIMIT = DEFAULT_ARCHIVE_LIMITS.maxArchiveBytes;

export interface CreateConfigurationVersion {
  autoQueueRuns: boolean;
  speculative: boolean;
  provisional: boolean;
}

/** Called once a configuration version asking to auto-queue a run has its upload. */
export type AutoQueue = (configurationVersion: ConfigurationVersionMeta, origin: string) => void;

/**
 * Configuration versions: created on a workspace with a one-use, short-lived upload link; the
 * slug that arrives is checked under the hostile-archive rules (a refusal is a 422 and errors the
 * version) and kept for runs and downloads. A version that is neither speculative nor provisional
 * becomes the workspace's current one when it is created (as the real service does; a run queued
 * without a version before the upload then meets a pending one). The link takes further uploads
 * until it expires (the Go client's own test uploads twice); the last one wins.
 */
export class ConfigurationVersionService {
  /** Told after a version is uploaded or gets its backing data back (the retention sweep looks again); set by the door. */
  backingDataChanged: (workspaceId: string) => void = () => undefined;
  /** Set by the run service: queues a run for `auto-queue-runs` versions. */
  autoQueue: AutoQueue = () => undefined;
  /** Uploaded slugs are read back whole one at a time, so concurrent uploads never hold several. */
  private readonly storing = new OneAtATime();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly workspaces: WorkspaceService,
    /** Run statuses that end a run: runs import this domain, so the door hands them in. */
    private readonly finalRunStatuses: readonly string[],
  ) {}

  create(located: Located, input: CreateConfigurationVersion): { version: ConfigurationVersionMeta; secret: string } {
    this.workspaces.require(located, 'can-queue-run');
    const upload = newUploadSecret();
    const now = this.clock.now();
    const row = {
      id: newId('cv'),
      workspaceId: located.workspace.id,
      status: 'pending' as const,
      source: 'svc-api',
      speculative: input.speculative,
      provisional: input.provisional,
      autoQueueRuns: input.autoQueueRuns,
      error: null,
      errorMessage: null,
      uploadSecret: upload.hash,
      uploadExpiresAt: new Date(now.getTime() + UPLOAD_LINK_TTL_MS),
      archive: null,
      statusTimestamps: {},
      createdAt: now,
    };
    this.db.transaction((tx) => {
      repo.insertConfigurationVersion(tx, row);
      if (!input.speculative && !input.provisional) {
        workspacesRepo.updateWorkspace(tx, located.workspace.id, { currentConfigurationVersionId: row.id });
      }
    });
    const { archive: _archive, ...version } = row;
    return { version, secret: upload.secret };
  }

  /**
   * A run of this version was applied: a provisional version (a saved plan's) becomes its
   * workspace's current one then, unless a newer version already is.
   */
  applied(id: string): void {
    const version = repo.findConfigurationVersion(this.db, id);
    if (!version?.provisional) return;
    const workspace = workspacesRepo.findWorkspace(this.db, version.workspaceId);
    if (!workspace || workspace.currentConfigurationVersionId === id) return;
    const current = workspace.currentConfigurationVersionId
      ? repo.findConfigurationVersion(this.db, workspace.currentConfigurationVersionId)
      : undefined;
    if (current && current.createdAt > version.createdAt) return;
    workspacesRepo.updateWorkspace(this.db, workspace.id, { currentConfigurationVersionId: id });
  }

  /** The version if the caller may read its workspace's runs; the 404 of a missing one otherwise. */
  locate(principal: Principal, id: string): { version: ConfigurationVersionMeta; located: Located } {
    const version = repo.findConfigurationVersion(this.db, id);
    if (!version) throw NOT_FOUND;
    const located = this.workspaces.locate(principal, version.workspaceId);
    this.workspaces.require(located, 'can-read-settings');
    return { version, located };
  }

  list(located: Located, offset: number, limit: number) {
    this.workspaces.require(located, 'can-read-settings');
    return repo.listConfigurationVersions(this.db, located.workspace.id, offset, limit);
  }

  /** The slug of an uploaded version (needs the right to queue runs, as the real download does). */
  download(principal: Principal, id: string): Buffer {
    const { version, located } = this.locate(principal, id);
    this.workspaces.require(located, 'can-queue-run');
    const archive = version.status === 'uploaded' ? repo.archiveOf(this.db, id) : null;
    if (!archive) throw notFound('the configuration version has no uploaded configuration');
    return archive;
  }

  /** The archive for a run task service, whose access token opens its run's configuration version (`allowed`) only. */
  taskDownload(id: string, allowed: string | undefined): Buffer {
    const readable = id === allowed && !backingDataDeleted(repo.findConfigurationVersion(this.db, id)?.status ?? 'pending');
    const archive = readable ? repo.archiveOf(this.db, id) : null;
    if (!archive) throw NOT_FOUND;
    return archive;
  }

  /**
   * `actions/archive`: the slug is dropped and the version reads `archived`. The workspace's
   * current version (the newest uploaded one, or one an unfinished run reads) is refused, as is
   * one that holds no slug.
   */
  archiveVersion(principal: Principal, id: string): void {
    const { version, located } = this.locate(principal, id);
    this.workspaces.require(located, 'can-queue-run');
    const refuse = (why: string) =>
      conflict(`configuration could not be archived because it is ${why}`, { title: 'transition not allowed' });
    if (version.status !== 'uploaded') throw refuse(version.status);
    if (repo.currentVersionIds(this.db, version.workspaceId, this.finalRunStatuses).has(version.id)) throw refuse('current');
    const statusTimestamps = { ...version.statusTimestamps, 'archived-at': isoTimestamp(this.clock.now()) };
    repo.updateConfigurationVersion(this.db, id, { status: 'archived', archive: null, statusTimestamps });
  }

  /**
   * The backing-data actions (self-hosted edition). Soft delete hides an uploaded version's slug
   * (its download answers 404, no run can use it) but keeps it; restore makes it `uploaded`
   * again; permanent delete drops the slug of a soft-deleted version for good. The workspace's
   * current version (and one an unfinished run reads) is never soft deleted. A move the statuses
   * do not allow is a 409 "transition not allowed". Workspace admins only.
   */
  backingData(principal: Principal, id: string, action: BackingDataAction): void {
    const { version, located } = this.locate(principal, id);
    this.workspaces.require(located, 'can-update');
    const refuse = (why: string) => conflict(`configuration version ${version.id} ${why}`, { title: 'transition not allowed' });
    const { from, to } = backingDataMove(action, 'uploaded');
    if (version.status !== from) throw refuse(`is ${version.status}, not ${from}`);
    if (
      action === 'soft_delete_backing_data' &&
      repo.currentVersionIds(this.db, version.workspaceId, this.finalRunStatuses).has(version.id)
    ) {
      throw refuse('is current');
    }
    repo.updateConfigurationVersion(
      this.db,
      id,
      action === 'permanently_delete_backing_data' ? { status: to, archive: null } : { status: to },
    );
    if (action === 'restore_backing_data') this.backingDataChanged(version.workspaceId);
  }

  /** The versions of a workspace that keep their slug whatever a retention policy says (the newest uploaded, those runs read). */
  protectedVersions(workspaceId: string): Set<string> {
    return repo.currentVersionIds(this.db, workspaceId, this.finalRunStatuses);
  }

  /** A data retention policy's soft delete: an uploaded version that is not protected. */
  expireBackingData(id: string): void {
    const version = repo.findConfigurationVersion(this.db, id);
    if (version?.status !== 'uploaded' || this.protectedVersions(version.workspaceId).has(id)) return;
    repo.updateConfigurationVersion(this.db, id, { status: backingDataMove('soft_delete_backing_data', 'uploaded').to });
  }

  find(id: string): ConfigurationVersionMeta | undefined {
    return repo.findConfigurationVersion(this.db, id);
  }

  archive(id: string): Buffer | null {
    return repo.archiveOf(this.db, id);
  }

  /**
   * An upload through the link. The secret must match and be unexpired; a second upload replaces
   * the first. A slug the archive rules refuse errors the version (the link is spent) and answers
   * 422 with the reason.
   */
  async upload(id: string, secret: string, body: Readable | Buffer, origin: string): Promise<void> {
    const version = repo.findConfigurationVersion(this.db, id);
    const expected = version?.uploadSecret;
    const live = version?.uploadExpiresAt && version.uploadExpiresAt.getTime() > this.clock.nowMs();
    if (!version || !expected || !live || !safeEqual(sha256Hex(secret), expected)) {
      throw notFound('the upload link is unknown, expired or was already used');
    }
    // Spooled to a file and checked from there (core/upload-spool.ts); a body over the limit is a
    // 413 that changes nothing, as when the limit was the route's.
    const tooLarge = () => new ApiError(413, `the configuration archive is larger than ${SLUG_UPLOAD_LIMIT} bytes`);
    let first = false;
    await withSpooledUpload(body, SLUG_UPLOAD_LIMIT, tooLarge, async (spooled) => {
      const at = isoTimestamp(this.clock.now());
      try {
        await checkSlug(spooled.stream());
      } catch (error) {
        if (!(error instanceof SlugRejected)) throw error;
        const invalid = new ApiError(422, error.message, { title: 'invalid archive' });
        // A refused replacement leaves the version's uploaded slug as it was.
        if (repo.findConfigurationVersion(this.db, id)?.status !== 'pending') throw invalid;
        repo.updateConfigurationVersion(this.db, id, {
          status: 'errored',
          uploadSecret: null,
          error: 'unprocessable',
          errorMessage: error.message,
          statusTimestamps: { ...version.statusTimestamps, 'errored-at': at },
        });
        throw invalid;
      }
      await this.storing.run(async () => {
        const archive = await spooled.read();
        // A refused upload through the same link may have spent it while this one was read.
        const current = repo.findConfigurationVersion(this.db, id);
        if (!current?.uploadSecret) throw notFound('the upload link is unknown, expired or was already used');
        first = current.status === 'pending';
        repo.updateConfigurationVersion(this.db, id, {
          status: 'uploaded',
          archive,
          statusTimestamps: { ...current.statusTimestamps, 'uploaded-at': at },
        });
      });
    });
    this.backingDataChanged(version.workspaceId);
    // Only the first upload queues a run; a later one through the same link replaces the slug.
    if (version.autoQueueRuns && first) {
      const uploaded = repo.findConfigurationVersion(this.db, id);
      if (uploaded) this.autoQueue(uploaded, origin);
    }
  }
}
