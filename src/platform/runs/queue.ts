import type { Db } from '../../store/store.js';
import type { WorkspaceLocks } from '../workspaces/locking.js';
import * as workspacesRepo from '../workspaces/repo.js';
import type { RunRecords } from './records.js';
import * as repo from './repo.js';
import { isFinal } from './states.js';

/**
 * One active run per workspace: it holds the workspace lock (taken and given back only through
 * `WorkspaceLocks`); later runs wait as `pending`, oldest first. Speculative runs never queue.
 */
export class RunQueue {
  constructor(
    private readonly db: Db,
    private readonly locks: WorkspaceLocks,
    private readonly records: RunRecords,
    private readonly start: (runId: string, workspaceId: string) => void,
  ) {}

  /**
   * Starts the workspace's next queued run if nothing holds the workspace: no active run and no
   * lock taken by a user or team (their runs wait, as on the platform, until it is unlocked).
   */
  pump(workspaceId: string): void {
    const workspace = workspacesRepo.findWorkspace(this.db, workspaceId);
    if (!workspace) return;
    const holder = workspace.lockedBy;
    if (holder && holder.kind !== 'run') return;
    // The active run keeps the workspace even if its lock was force-unlocked meanwhile.
    for (const id of [holder?.id, workspace.currentRunId]) {
      const current = id ? repo.findRun(this.db, id) : undefined;
      if (current && !isFinal(current.status)) return;
    }
    const next = repo.nextQueued(this.db, workspaceId);
    if (!next) return;
    this.records.makeCurrent(next.id, workspaceId);
    this.start(next.id, workspaceId);
  }

  /** Force-execute: the workspace is taken from whichever run held it (a user's or team's lock stays). */
  takeFromRuns(workspaceId: string): void {
    this.locks.dropRunLock(workspaceId);
  }
}
