import type { Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import type { Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { lockerOf } from '../workspaces/locking.js';
import type { Located } from '../workspaces/service.js';
import * as repo from './repo.js';
import type { RunCommentRow, RunEventRow } from './repo.js';
import type { RunService } from './service.js';

/**
 * What happened to a run (its events, which the CLI reads for warnings) and the comments on it.
 * Reading either needs read access to the run's workspace; commenting needs `can-queue-run`.
 */
export class RunActivityService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly runs: RunService,
  ) {}

  eventsOf(principal: Principal, runId: string): { rows: RunEventRow[]; located: Located } {
    const { run, located } = this.runs.locate(principal, runId);
    return { rows: repo.eventsOf(this.db, run.id), located };
  }

  event(principal: Principal, id: string): { event: RunEventRow; located: Located } {
    const event = repo.findEvent(this.db, id);
    if (!event) throw NOT_FOUND;
    return { event, located: this.runs.locate(principal, event.runId).located };
  }

  commentsOf(principal: Principal, runId: string): { rows: RunCommentRow[]; located: Located } {
    const { run, located } = this.runs.locate(principal, runId);
    return { rows: repo.commentsOf(this.db, run.id), located };
  }

  comment(principal: Principal, id: string): { comment: RunCommentRow; located: Located } {
    const comment = repo.findComment(this.db, id);
    if (!comment) throw NOT_FOUND;
    return { comment, located: this.runs.locate(principal, comment.runId).located };
  }

  /** `readBody` runs after the permission checks: a caller who may not comment hears 404 or 403, not the body's rules. */
  addComment(principal: Principal, runId: string, readBody: () => string): { comment: RunCommentRow; located: Located } {
    const { run, located } = this.runs.locate(principal, runId);
    this.runs.workspaces.require(located, 'can-queue-run');
    const body = readBody();
    const comment = { id: newId('wsc'), runId: run.id, body, createdBy: lockerOf(principal), createdAt: this.clock.now() };
    repo.insertComment(this.db, comment);
    return { comment, located };
  }

  /** The comment an override action carries (the caller's right to override was checked): a run comment by the caller. */
  recordOverrideComment(principal: Principal, runId: string, body: string): void {
    repo.insertComment(this.db, { id: newId('wsc'), runId, body, createdBy: lockerOf(principal), createdAt: this.clock.now() });
  }

  /** A comment by id, whoever asks (for `include=comment` on events the caller may already read). */
  findComment(id: string): RunCommentRow | undefined {
    return repo.findComment(this.db, id);
  }

  /** The ids of a run's comments, oldest first (the run's `comments` relationship). */
  commentIdsOf(runId: string): string[] {
    return repo.commentsOf(this.db, runId).map((row) => row.id);
  }
}
