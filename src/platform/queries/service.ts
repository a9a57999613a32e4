import type { FastifyBaseLogger } from 'fastify';
import { isoTimestamp, type ControllableClock } from '../../core/clock.js';
import { conflict, unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { Listeners } from '../../core/listeners.js';
import type { DueItem, DueSource, RanWork, Scheduler } from '../../core/scheduler.js';
import type { Db } from '../../store/store.js';
import type { StoredRunVariable } from '../../store/tables.js';
import type { Principal, UserRow } from '../auth/principal.js';
import type { ConfigurationVersionMeta } from '../configuration-versions/repo.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { LogBook } from '../runs/logs.js';
import { waitAtGate, type Gate, type Progression } from '../runs/progression.js';
import { findUserById } from '../users/repo.js';
import { lockerOf } from '../workspaces/locking.js';
import type { Located, WorkspaceService } from '../workspaces/service.js';
import * as repo from './repo.js';
import type { QueryRunRow } from './repo.js';
import { simulateQuery } from './simulate.js';

/** The sources the real API accepts for a query run. */
export const QUERY_SOURCES = ['tfe-api', 'tfe-ui', 'tfe-module', 'tfe-no-code-query', 'terraform'] as const;

/** Statuses a query run ends in. */
const FINAL = new Set(['finished', 'canceled', 'errored']);
/** Statuses a cancel stops (the real API: "pending or running"; queued is on its way to running). */
const CANCELABLE = new Set(['pending', 'queued', 'running']);

export interface CreateQueryRun {
  configurationVersionId?: string;
  source: string;
  terraformVersion?: string;
  variables?: StoredRunVariable[];
  generateConfigOut?: boolean;
}

/** What the door hands in: the configuration, the state, the log book and the run progression, from the domains that own them. */
export interface QuerySources {
  configurationVersions: { find(id: string): ConfigurationVersionMeta | undefined; archive(id: string): Buffer | null };
  stateVersions: { currentStateText(workspaceId: string): string | null };
  logs: LogBook;
  progressionOf(workspaceId: string): Progression;
}

interface Active {
  controller: AbortController;
  gate?: Gate;
  /** Callers waiting for the query to stop moving (its next gate, or its end). */
  settled: (() => void)[];
}

/**
 * Query runs (`/api/v2/queries`): `terraform query` over a workspace's configuration version,
 * simulated (the installed CLI predates `terraform query`): `pending` → `queued` → `running` →
 * `finished` (or `errored`, `canceled`), paced by the workspace's run progression. They take no
 * lock, queue behind nothing and change no state. Reading needs read access to the workspace,
 * creating and canceling the right to queue runs.
 */
/** A query run reached `status`. */
interface QueryStatusChange {
  id: string;
  status: string;
}

export class QueryService implements DueSource {
  readonly name = 'queries';
  private readonly active = new Map<string, Active>();
  private generation = 0;
  private readonly statusListeners: Listeners<QueryStatusChange>;

  constructor(
    private readonly db: Db,
    private readonly clock: ControllableClock,
    private readonly scheduler: Scheduler,
    readonly workspaces: WorkspaceService,
    private readonly sources: QuerySources,
    log: FastifyBaseLogger,
  ) {
    this.statusListeners = new Listeners(log, 'a query run status listener failed', (change) => ({ query: change.id, to: change.status }));
    scheduler.register(this);
    sources.logs.addSource((id) => {
      const row = id.startsWith('query-') ? repo.findQueryRun(this.db, id) : undefined;
      return row && { log: row.log, complete: FINAL.has(row.status) };
    });
    // A query left working by a previous process cannot go on.
    for (const row of repo.unfinishedQueryRuns(this.db))
      this.end(row.id, 'errored', '\nError: understudy stopped while this query was running.\n');
  }

  locate(principal: Principal, id: string): { query: QueryRunRow; located: Located } {
    const query = repo.findQueryRun(this.db, id);
    if (!query) throw NOT_FOUND;
    const located = this.workspaces.locate(principal, query.workspaceId);
    this.workspaces.require(located, 'can-read-settings');
    return { query, located };
  }

  list(located: Located, offset: number, limit: number) {
    this.workspaces.require(located, 'can-read-settings');
    return repo.listQueryRuns(this.db, located.workspace.id, offset, limit);
  }

  create(located: Located, principal: Principal, input: CreateQueryRun): QueryRunRow {
    this.workspaces.require(located, 'can-queue-run');
    const { workspace } = located;
    const pointer = '/data/relationships/configuration-version/data/id';
    const cvId = input.configurationVersionId ?? workspace.currentConfigurationVersionId;
    if (!cvId) throw unprocessable('the workspace has no configuration version; upload one first', pointer);
    const version = this.sources.configurationVersions.find(cvId);
    if (!version || version.workspaceId !== workspace.id) throw unprocessable('configuration version not found in this workspace', pointer);
    if (version.status !== 'uploaded') throw unprocessable(`the configuration version is ${version.status}, not uploaded`, pointer);
    const now = this.clock.now();
    const row: QueryRunRow = {
      id: newId('query'),
      workspaceId: workspace.id,
      configurationVersionId: version.id,
      status: 'pending',
      source: input.source,
      terraformVersion: input.terraformVersion ?? workspace.toolVersion,
      variables: input.variables ?? [],
      generateConfigOut: input.generateConfigOut ?? true,
      resourcesDiscovered: null,
      log: '',
      createdBy: lockerOf(principal),
      canceledBy: null,
      statusTimestamps: { 'pending-at': isoTimestamp(now) },
      progression: this.sources.progressionOf(workspace.id),
      createdAt: now,
      updatedAt: now,
    };
    repo.insertQueryRun(this.db, row);
    const entry: Active = { controller: new AbortController(), settled: [] };
    this.active.set(row.id, entry);
    void this.execute(row, entry);
    return row;
  }

  cancel(principal: Principal, id: string): void {
    const { query, located } = this.locate(principal, id);
    this.workspaces.require(located, 'can-queue-run');
    if (!CANCELABLE.has(query.status))
      throw conflict('Failed to transition Query Run to a canceled state.', { title: 'transition not allowed' });
    this.end(query.id, 'canceled', '\nQuery canceled.\n', lockerOf(principal));
  }

  /** The user who created the query run, for the `created-by` include. */
  creatorOf(query: QueryRunRow): UserRow | undefined {
    return query.createdBy?.kind === 'user' ? findUserById(this.db, query.createdBy.id) : undefined;
  }

  isCancelable(query: QueryRunRow): boolean {
    return CANCELABLE.has(query.status);
  }

  /** Calls `listener` after every status a query run reaches; answers the unsubscribe. Listeners cannot break a query. */
  onStatus(listener: (id: string, status: string) => void): () => void {
    return this.statusListeners.add((change) => listener(change.id, change.status));
  }

  private announce(id: string, status: string): void {
    this.statusListeners.emit({ id, status });
  }

  // ---- Pacing (the control plane's advance, the clock) -----------------------------------

  /** Lets a query waiting at a manual or clock gate move on, and resolves once it stopped again. */
  async release(id: string): Promise<boolean> {
    const entry = this.active.get(id);
    if (!entry?.gate) return false;
    const settled = new Promise<void>((resolve) => entry.settled.push(resolve));
    const { resolve } = entry.gate;
    entry.gate = undefined;
    resolve();
    await settled;
    return true;
  }

  /** A query run's status and whether it waits at a gate (the control plane's answer; no permission check). */
  describe(id: string): { id: string; status: string; waiting: boolean } | undefined {
    const row = repo.findQueryRun(this.db, id);
    return row && { id: row.id, status: row.status, waiting: this.active.get(id)?.gate !== undefined };
  }

  next(): DueItem | undefined {
    let best: { at: number; id: string } | undefined;
    for (const [id, entry] of this.active) {
      const at = entry.gate?.at;
      if (at !== undefined && (!best || at < best.at)) best = { at, id };
    }
    if (!best) return undefined;
    const { at, id } = best;
    return {
      at,
      run: async (): Promise<RanWork> => {
        await this.release(id);
        const status = repo.findQueryRun(this.db, id)?.status ?? 'gone';
        return { at: new Date(at).toISOString(), kind: 'query-progress', subject: id, outcome: 'done', detail: `left ${status}` };
      },
    };
  }

  /** After `/_emulator/reset`: the store was wiped; every query's work stops and nothing it does is written. */
  reset(): void {
    this.generation += 1;
    for (const entry of this.active.values()) stop(entry);
    this.active.clear();
  }

  // ---- Execution ---------------------------------------------------------------------------

  private async execute(row: QueryRunRow, entry: Active): Promise<void> {
    const generation = this.generation;
    const live = () => generation === this.generation && !entry.controller.signal.aborted;
    try {
      await this.gate(row, entry);
      if (!live()) return;
      this.move(row.id, 'queued');
      await this.gate(row, entry);
      if (!live()) return;
      this.move(row.id, 'running');
      this.sources.logs.start(row.id);
      await this.gate(row, entry);
      if (!live()) return;
      const slug = this.sources.configurationVersions.archive(row.configurationVersionId);
      if (!slug) throw new Error('the configuration version has no uploaded configuration');
      const outcome = await simulateQuery(slug, row.terraformVersion, this.sources.stateVersions.currentStateText(row.workspaceId));
      if (!live()) return;
      repo.updateQueryRun(this.db, row.id, { resourcesDiscovered: outcome.resourcesDiscovered });
      this.end(row.id, outcome.status, outcome.log);
    } catch (error) {
      if (live()) this.end(row.id, 'errored', `\nError: understudy could not run this query: ${(error as Error).message}\n`);
    }
  }

  /** Waits for the progression: at once, `CLOCK_STEP_MS` of virtual time, or an advance request. */
  private async gate(row: QueryRunRow, entry: Active): Promise<void> {
    const waiting = waitAtGate(row.progression as Progression, this.clock, this.scheduler, (gate) => {
      entry.gate = gate;
      notify(entry);
    });
    if (waiting) await waiting;
  }

  private move(id: string, status: string): void {
    const row = repo.findQueryRun(this.db, id);
    if (!row || FINAL.has(row.status)) return;
    const now = this.clock.now();
    repo.updateQueryRun(this.db, id, {
      status,
      statusTimestamps: { ...row.statusTimestamps, [`${status}-at`]: isoTimestamp(now) },
      updatedAt: now,
    });
    this.announce(id, status);
  }

  /** Ends a query (unless it has ended already): its final status, its whole log stored, its work stopped. */
  private end(id: string, status: 'finished' | 'canceled' | 'errored', text: string, by: QueryRunRow['canceledBy'] = null): void {
    const row = repo.findQueryRun(this.db, id);
    if (row && !FINAL.has(row.status)) {
      this.sources.logs.append(id, text);
      const log = this.sources.logs.text(id) || row.log + text;
      const now = this.clock.now();
      repo.updateQueryRun(this.db, id, {
        status,
        log,
        canceledBy: by,
        statusTimestamps: { ...row.statusTimestamps, [`${status}-at`]: isoTimestamp(now) },
        updatedAt: now,
      });
      this.sources.logs.forget(id);
      this.announce(id, status);
    }
    const entry = this.active.get(id);
    this.active.delete(id);
    if (entry) stop(entry);
  }
}

function notify(entry: Active): void {
  for (const resolve of entry.settled.splice(0)) resolve();
}

function stop(entry: Active): void {
  entry.controller.abort();
  entry.gate?.resolve();
  notify(entry);
}
