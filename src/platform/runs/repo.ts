import { and, asc, count, desc, eq, like, lt, max, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { prepared } from '../../store/prepared.js';
import { inList } from '../../store/sql-lists.js';
import type { DbOrTx } from '../../store/store.js';
import { runComments, runEvents, runPhases, runs, runTriggers } from '../../store/tables.js';
import { updateRows } from '../../store/update.js';
import { commentEventId } from './comment-ids.js';
import { FINAL_STATUSES } from './states.js';

export type RunRow = typeof runs.$inferSelect;
export type PhaseRow = typeof runPhases.$inferSelect;
export type RunEventRow = typeof runEvents.$inferSelect;
export type RunCommentRow = typeof runComments.$inferSelect;
export type RunTriggerRow = typeof runTriggers.$inferSelect;

// The engine reads a run back at every step of its lifecycle (some 45 times per run): built once.
const runById = prepared((db) =>
  db
    .select()
    .from(runs)
    .where(eq(runs.id, sql.placeholder('id')))
    .prepare(),
);

export const findRun = (db: DbOrTx, id: string): RunRow | undefined => runById(db).get({ id });

export function findRuns(db: DbOrTx, ids: readonly string[]): RunRow[] {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(runs)
    .where(inList(runs.id, [...ids]))
    .all();
}

export function insertRun(db: DbOrTx, row: RunRow): void {
  db.insert(runs).values(row).run();
}

export function updateRun(db: DbOrTx, id: string, changes: Partial<RunRow>): void {
  updateRows(db, runs, changes, eq(runs.id, id));
}

export function nextRunSequence(db: DbOrTx, workspaceId: string): number {
  return (
    (db
      .select({ n: max(runs.sequence) })
      .from(runs)
      .where(eq(runs.workspaceId, workspaceId))
      .get()?.n ?? 0) + 1
  );
}

/** The workspace's oldest run still waiting its turn (speculative runs never queue). */
export function nextQueued(db: DbOrTx, workspaceId: string): RunRow | undefined {
  return db
    .select()
    .from(runs)
    .where(
      and(
        eq(runs.workspaceId, workspaceId),
        or(
          and(eq(runs.status, 'pending'), eq(runs.planOnly, false), eq(runs.savePlan, false)),
          // A saved plan confirmed for apply waits for the workspace here.
          and(eq(runs.status, 'confirmed'), eq(runs.savePlan, true)),
        ),
      ),
    )
    .orderBy(asc(runs.sequence))
    .limit(1)
    .get();
}

/** Saved plans of a workspace not yet applying: waiting to be confirmed, or confirmed and waiting for the workspace. */
export function savedPlansWaiting(db: DbOrTx, workspaceId: string): RunRow[] {
  return db
    .select()
    .from(runs)
    .where(and(eq(runs.workspaceId, workspaceId), eq(runs.savePlan, true), inList(runs.status, ['planned_and_saved', 'confirmed'])))
    .all();
}

/** The statuses of a saved plan once confirmed: from then on it is in its workspace's queue (or holds it). */
const SAVED_PLAN_QUEUED = ['confirmed', 'pre_apply_running', 'pre_apply_completed', 'apply_queued', 'applying'];

/** A run in its workspace's queue: unfinished, not speculative, and not a saved plan still unconfirmed (those never queue). */
const inQueue = () =>
  and(
    eq(runs.planOnly, false),
    notInArray(runs.status, [...FINAL_STATUSES]),
    or(eq(runs.savePlan, false), inList(runs.status, SAVED_PLAN_QUEUED)),
  );

/**
 * Unfinished runs of a workspace's queue created before `sequence` (force-execute clears them):
 * neither speculative ones nor saved plans not yet confirmed, which never queue.
 */
export function unfinishedBefore(db: DbOrTx, workspaceId: string, sequence: number): RunRow[] {
  return db
    .select()
    .from(runs)
    .where(and(eq(runs.workspaceId, workspaceId), lt(runs.sequence, sequence), inQueue()))
    .all();
}

/** The queued runs of these workspaces (queue positions for a page at once). */
export function unfinishedIn(db: DbOrTx, workspaceIds: readonly string[]): Pick<RunRow, 'id' | 'workspaceId' | 'sequence'>[] {
  if (workspaceIds.length === 0) return [];
  return db
    .select({ id: runs.id, workspaceId: runs.workspaceId, sequence: runs.sequence })
    .from(runs)
    .where(and(inList(runs.workspaceId, [...workspaceIds]), inQueue()))
    .all();
}

/** Runs not in a final status, everywhere (a restart errors them: their execution died with the process). */
export function unfinishedRuns(db: DbOrTx): RunRow[] {
  return db
    .select()
    .from(runs)
    .where(notInArray(runs.status, [...FINAL_STATUSES]))
    .all();
}

export interface RunFilter {
  workspaceId?: string;
  organizationId?: string;
  statuses?: string[];
  sources?: string[];
  /** SQL conditions for `filter[operation]`, built by the service. */
  operation?: SQL;
  search?: string;
  workspaceIds?: string[];
}

function conditions(filter: RunFilter): SQL | undefined {
  const parts: (SQL | undefined)[] = [];
  if (filter.workspaceId) parts.push(eq(runs.workspaceId, filter.workspaceId));
  if (filter.organizationId) parts.push(eq(runs.organizationId, filter.organizationId));
  if (filter.workspaceIds) parts.push(inList(runs.workspaceId, filter.workspaceIds));
  if (filter.statuses?.length) parts.push(inList(runs.status, filter.statuses));
  if (filter.sources?.length) parts.push(inList(runs.source, filter.sources));
  if (filter.operation) parts.push(filter.operation);
  if (filter.search) parts.push(or(like(runs.id, `%${filter.search}%`), like(runs.message, `%${filter.search}%`)));
  return and(...parts);
}

/** Newest first, as the real lists are; `total` counts the whole filtered set. */
export function listRuns(db: DbOrTx, filter: RunFilter, offset: number, limit: number): { rows: RunRow[]; total: number } {
  const where = conditions(filter);
  const rows = db.select().from(runs).where(where).orderBy(desc(runs.createdAt), desc(runs.sequence)).limit(limit).offset(offset).all();
  const total = db.select({ n: count() }).from(runs).where(where).get()?.n ?? 0;
  return { rows, total };
}

export const findPhase = (db: DbOrTx, id: string): PhaseRow | undefined => db.select().from(runPhases).where(eq(runPhases.id, id)).get();

export function phasesOf(db: DbOrTx, runIds: readonly string[]): PhaseRow[] {
  if (runIds.length === 0) return [];
  return db
    .select()
    .from(runPhases)
    .where(inList(runPhases.runId, [...runIds]))
    .all();
}

const phaseByKind = prepared((db) =>
  db
    .select()
    .from(runPhases)
    .where(and(eq(runPhases.runId, sql.placeholder('runId')), eq(runPhases.kind, sql.placeholder('kind'))))
    .prepare(),
);

/** The run's plan or apply phase. */
export function findPhaseOf(db: DbOrTx, runId: string, kind: PhaseRow['kind']): PhaseRow | undefined {
  return phaseByKind(db).get({ runId, kind });
}

export function insertPhase(db: DbOrTx, row: PhaseRow): void {
  db.insert(runPhases).values(row).run();
}

export function updatePhase(db: DbOrTx, id: string, changes: Partial<PhaseRow>): void {
  updateRows(db, runPhases, changes, eq(runPhases.id, id));
}

export function insertEvent(db: DbOrTx, row: RunEventRow): void {
  db.insert(runEvents).values(row).run();
}

export function eventsOf(db: DbOrTx, runId: string): RunEventRow[] {
  return db.select().from(runEvents).where(eq(runEvents.runId, runId)).orderBy(asc(runEvents.createdAt), asc(runEvents.id)).all();
}

export const findEvent = (db: DbOrTx, id: string) => db.select().from(runEvents).where(eq(runEvents.id, id)).get();

/** A comment, and the `commented` run event by the same actor that shows it among the run's events. */
export function insertComment(db: DbOrTx, row: RunCommentRow): void {
  db.transaction((tx) => {
    tx.insert(runComments).values(row).run();
    const event = { id: commentEventId(row.id), runId: row.runId, action: 'commented', description: null, actor: row.createdBy };
    tx.insert(runEvents)
      .values({ ...event, createdAt: row.createdAt })
      .run();
  });
}

export function commentsOf(db: DbOrTx, runId: string): RunCommentRow[] {
  return db.select().from(runComments).where(eq(runComments.runId, runId)).orderBy(asc(runComments.createdAt), asc(runComments.id)).all();
}

/** The comment ids of each run, oldest first, for a page at once. */
export function commentIdsOfRuns(db: DbOrTx, runIds: readonly string[]): Map<string, string[]> {
  const byRun = new Map<string, string[]>(runIds.map((id) => [id, []]));
  if (runIds.length === 0) return byRun;
  const rows = db
    .select({ id: runComments.id, runId: runComments.runId })
    .from(runComments)
    .where(inList(runComments.runId, [...runIds]))
    .orderBy(asc(runComments.createdAt), asc(runComments.id))
    .all();
  for (const row of rows) byRun.get(row.runId)?.push(row.id);
  return byRun;
}

export const findComment = (db: DbOrTx, id: string) => db.select().from(runComments).where(eq(runComments.id, id)).get();

export function findComments(db: DbOrTx, ids: readonly string[]): RunCommentRow[] {
  if (ids.length === 0) return [];
  return db
    .select()
    .from(runComments)
    .where(inList(runComments.id, [...ids]))
    .all();
}

export function insertTrigger(db: DbOrTx, row: RunTriggerRow): void {
  db.insert(runTriggers).values(row).run();
}

export const findTrigger = (db: DbOrTx, id: string) => db.select().from(runTriggers).where(eq(runTriggers.id, id)).get();

export function deleteTrigger(db: DbOrTx, id: string): void {
  db.delete(runTriggers).where(eq(runTriggers.id, id)).run();
}

export function triggersOf(db: DbOrTx, side: 'inbound' | 'outbound', workspaceId: string): RunTriggerRow[] {
  const column = side === 'inbound' ? runTriggers.workspaceId : runTriggers.sourceWorkspaceId;
  return db.select().from(runTriggers).where(eq(column, workspaceId)).orderBy(asc(runTriggers.createdAt)).all();
}
