import type { Clock } from '../../core/clock.js';
import { EarliestDue, type Pending } from '../../core/earliest-due.js';
import type { RanWork, Scheduler } from '../../core/scheduler.js';
import type { Db } from '../../store/store.js';
import type { StoredRetentionPolicy } from '../../store/tables.js';
import * as repo from './repo.js';
import type { RetainedWorkspace } from './repo.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** A version whose backing data a policy marks for garbage collection. */
export interface Expiring {
  kind: 'state-version' | 'configuration-version';
  id: string;
  workspaceId: string;
}

/** What the sweep needs of the version domains (handed in by the door). */
export interface BackingDataExpiry {
  /** Soft deletes a finalized state version's backing data (no permission check: the policy decided). */
  expireStateVersion(id: string): void;
  /** Soft deletes an uploaded configuration version's backing data. */
  expireConfigurationVersion(id: string): void;
  /** The configuration versions of a workspace that must keep their slug (the newest, those unfinished runs read). */
  protectedConfigurationVersions(workspaceId: string): Set<string>;
}

/** The policy that applies to a workspace: its own, else its organization's. */
function effectivePolicy(workspace: RetainedWorkspace): StoredRetentionPolicy | null {
  return workspace.own ?? workspace.inherited;
}

/**
 * Data retention applied (self-hosted edition): under a `delete-older-than-n-days` policy (the
 * workspace's own, else its organization's), the backing data of each state version and
 * configuration version older than N days is soft deleted as the clock passes that age (as the
 * `soft_delete_backing_data` action does; nothing is deleted for good). The workspace's current
 * state version and its current, newest uploaded or in-use configuration versions are never
 * touched. A scheduler source: `POST /_emulator/clock` runs what falls due on the way.
 */
export class RetentionSweep {
  readonly source: EarliestDue<Expiring>;
  /**
   * Each covered workspace's pending items, kept between scans: a change in one workspace (a run's
   * end, a new version) looks again at that workspace only, not at every workspace a policy covers.
   * Undefined until the first scan and after a change that may touch any workspace (a policy, a restore).
   */
  private byWorkspace: Map<string, Pending<Expiring>[]> | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    scheduler: Pick<Scheduler, 'poke'>,
    private readonly expiry: BackingDataExpiry,
  ) {
    this.source = new EarliestDue<Expiring>(scheduler, {
      name: 'data-retention',
      findEarliest: () => {
        let best: Pending<Expiring> | null = null;
        for (const pending of this.pendingByWorkspace().values())
          for (const candidate of pending) if (!best || candidate.at < best.at) best = candidate;
        return best;
      },
      run: (pending) => Promise.resolve(this.run(pending)),
      onReset: () => (this.byWorkspace = undefined),
    });
  }

  /** Something a policy reads changed (a policy, a new current version, a restore, a run's end): look again. */
  changed(): void {
    this.byWorkspace = undefined;
    this.source.changed();
  }

  /** Something changed in one workspace: look again at it only if a `delete-older` policy covers it (one row read, not a scan). */
  changedIn(workspaceId: string): void {
    const workspace = repo.workspaceUnderPolicy(this.db, workspaceId);
    const covered = workspace !== undefined && effectivePolicy(workspace)?.kind === 'delete-older';
    if (!covered && !this.byWorkspace?.has(workspaceId)) return;
    this.refresh(workspaceId, workspace);
    this.source.changed();
  }

  private pendingByWorkspace(): Map<string, Pending<Expiring>[]> {
    if (this.byWorkspace) return this.byWorkspace;
    const scanned = new Map<string, Pending<Expiring>[]>();
    for (const workspace of repo.workspacesUnderPolicy(this.db)) {
      const pending = this.candidates(workspace);
      if (pending.length > 0) scanned.set(workspace.id, pending);
    }
    this.byWorkspace = scanned;
    return scanned;
  }

  /** The workspace's earliest expiring state version and configuration version, each with its due time. */
  private candidates(workspace: RetainedWorkspace): Pending<Expiring>[] {
    const policy = effectivePolicy(workspace);
    if (policy?.kind !== 'delete-older') return [];
    const keepFor = policy.deleteOlderThanNDays * DAY_MS;
    const found: Pending<Expiring>[] = [];
    const state = repo.oldestFinalizedStateVersion(this.db, workspace.id, workspace.currentStateVersionId);
    if (state)
      found.push({ at: state.createdAt.getTime() + keepFor, item: { kind: 'state-version', id: state.id, workspaceId: workspace.id } });
    const kept = this.expiry.protectedConfigurationVersions(workspace.id);
    if (workspace.currentConfigurationVersionId) kept.add(workspace.currentConfigurationVersionId);
    const configuration = repo
      .oldestUploadedConfigurationVersions(this.db, workspace.id, kept.size + 1)
      .find((version) => !kept.has(version.id));
    if (configuration) {
      found.push({
        at: configuration.createdAt.getTime() + keepFor,
        item: { kind: 'configuration-version', id: configuration.id, workspaceId: workspace.id },
      });
    }
    return found;
  }

  /** Soft deletes the item's backing data if the policy still asks for it now (the store may have changed since the scan). */
  private run({ at, item }: Pending<Expiring>): RanWork {
    const work = { at: new Date(at).toISOString(), kind: 'data-retention', subject: item.id, outcome: 'done' as const };
    try {
      const workspace = repo.workspaceUnderPolicy(this.db, item.workspaceId);
      const now = this.clock.nowMs();
      const due = workspace ? this.candidates(workspace).find((pending) => pending.item.id === item.id && pending.at <= now) : undefined;
      if (!due) return { ...work, detail: 'no longer due' };
      if (item.kind === 'state-version') this.expiry.expireStateVersion(item.id);
      else this.expiry.expireConfigurationVersion(item.id);
      return { ...work, detail: `${item.kind} backing data soft deleted` };
    } finally {
      // The workspace's items as they are now, whatever the expiry reported: the cached ones may be stale.
      this.refresh(item.workspaceId);
    }
  }

  private refresh(workspaceId: string, workspace = repo.workspaceUnderPolicy(this.db, workspaceId)): void {
    if (!this.byWorkspace) return;
    const pending = workspace ? this.candidates(workspace) : [];
    if (pending.length > 0) this.byWorkspace.set(workspaceId, pending);
    else this.byWorkspace.delete(workspaceId);
  }
}
