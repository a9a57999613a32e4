import type { Clock } from '../../core/clock.js';
import { conflict } from '../../core/errors.js';
import type { Db, DbOrTx } from '../../store/store.js';
import type { PrincipalLocker, WorkspaceLocker } from '../../store/tables.js';
import type { Principal } from '../auth/principal.js';
import { findTeam } from '../teams/repo.js';
import { findUserById } from '../users/repo.js';
import { organizationServiceAccount } from '../users/service.js';
import { findOrganizationById } from '../organizations/repo.js';
import * as repo from './repo.js';
import type { Located, WorkspaceService } from './service.js';

/** Who a lock belongs to, in the words the real client matches in 409s ("is locked by User"). */
function lockerName(db: DbOrTx, locker: WorkspaceLocker): string {
  if (locker.kind === 'run') return `Run ${locker.id}`;
  if (locker.kind === 'team') return `Team ${findTeam(db, locker.id)?.name ?? locker.id}`;
  if (locker.kind === 'user') return `User ${findUserById(db, locker.id)?.username ?? locker.id}`;
  const organization = findOrganizationById(db, locker.id);
  return organization ? `User ${organizationServiceAccount(organization).username}` : 'the organization token';
}

export function lockerOf(principal: Principal): PrincipalLocker {
  if (principal.kind === 'user') return { kind: 'user', id: principal.user.id };
  if (principal.kind === 'team') return { kind: 'team', id: principal.team.id };
  return { kind: 'organization', id: principal.organization.id };
}

/**
 * Workspace locks. The 409 texts follow what real clients parse: a second lock is "already
 * locked"; unlocking someone else's lock names the holder ("is locked by User alice"); unlocking
 * or force-unlocking an unlocked workspace says "not locked".
 */
export class WorkspaceLocks {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly workspaces: WorkspaceService,
    /** Whether the workspace's newest state version still waits for its upload (the state domain knows). */
    private readonly statePending: (workspaceId: string) => boolean,
  ) {}

  /** Told when a workspace is unlocked (the run queue starts a run that waited for it). */
  onUnlocked: (workspaceId: string) => void = () => undefined;

  private set(located: Located, locker: WorkspaceLocker | null, reason: string | null): Located {
    repo.updateWorkspace(this.db, located.workspace.id, { lockedBy: locker, lockReason: reason, updatedAt: this.clock.now() });
    return this.workspaces.reload(located);
  }

  lock(located: Located, principal: Principal, reason: string | null): Located {
    this.workspaces.require(located, 'can-lock');
    if (located.workspace.lockedBy) throw conflict('Unable to lock workspace: the workspace is already locked');
    return this.set(located, lockerOf(principal), reason);
  }

  /** Only the lock's holder unlocks; anyone else gets the 409 that names the holder (or force-unlocks). */
  unlock(located: Located, principal: Principal): Located {
    this.workspaces.require(located, 'can-unlock');
    const holder = located.workspace.lockedBy;
    if (!holder) throw conflict('Unable to unlock workspace: the workspace is not locked');
    // The real client retries on this text: its state upload may still be on its way.
    if (this.statePending(located.workspace.id)) {
      throw conflict('Unable to unlock workspace: the latest state version is still pending');
    }
    const caller = lockerOf(principal);
    if (holder.kind !== caller.kind || holder.id !== caller.id) {
      throw conflict(`Unable to unlock workspace: the workspace is locked by ${lockerName(this.db, holder)}`);
    }
    const unlocked = this.set(located, null, null);
    this.onUnlocked(located.workspace.id);
    return unlocked;
  }

  // ---- The run queue's lock: a workspace's active run holds it while it works ----------

  /** Who holds the workspace's lock, if anyone. */
  holder(db: DbOrTx, workspaceId: string): WorkspaceLocker | null {
    return repo.findWorkspace(db, workspaceId)?.lockedBy ?? null;
  }

  /** The run the queue starts takes the lock (the queue checked that nobody holds it). */
  takeForRun(tx: DbOrTx, workspaceId: string, runId: string): void {
    repo.updateWorkspace(tx, workspaceId, { lockedBy: { kind: 'run', id: runId } });
  }

  /** An ending run gives the lock back if it holds it; a lock taken from it meanwhile stays. */
  releaseRun(tx: DbOrTx, workspaceId: string, runId: string): void {
    const holder = this.holder(tx, workspaceId);
    if (holder?.kind === 'run' && holder.id === runId) repo.updateWorkspace(tx, workspaceId, { lockedBy: null });
  }

  /** Force-execute takes the workspace from whichever run holds it; a user's or team's lock stays. */
  dropRunLock(workspaceId: string): void {
    if (this.holder(this.db, workspaceId)?.kind === 'run') repo.updateWorkspace(this.db, workspaceId, { lockedBy: null });
  }

  forceUnlock(located: Located): Located {
    this.workspaces.require(located, 'can-force-unlock');
    if (!located.workspace.lockedBy) throw conflict('Unable to force-unlock workspace: the workspace is not locked');
    const unlocked = this.set(located, null, null);
    this.onUnlocked(located.workspace.id);
    return unlocked;
  }
}
