import { BodyArena, BODY_CHUNK_BYTES } from './body-arena.js';
import { DROPPED_BODY } from './capture.js';
import { EntryColumns } from './entry-columns.js';
import { invalid } from './errors.js';
import { globMatches } from './glob.js';
import { WatchedRequest } from './watched.js';

/** What a fault rule did to a request, as the journal marks it. */
export interface FaultMark {
  rule: string;
  effect: 'status' | 'delay' | 'reset' | 'timeout';
}

/** One request as the journal keeps it; what it shows (path, query, bodies) is redacted, when first read at the latest. */
export interface JournalRecord {
  id: number;
  requestId: string;
  timeMs: number;
  virtualMs: number;
  method: string;
  path: string;
  /** The query string after `?` (redacted), empty when there is none. */
  query: string;
  /** Null when the connection was dropped or held by a fault: no answer was sent. */
  status: number | null;
  durationMs: number;
  /** The token's accessor (secrets) or id (platform); never the token. */
  subject: string | null;
  /** Both bodies, redacted; worked out the first time someone reads the entry (see capture.ts). */
  bodies(): { request: unknown; response: unknown };
  /** About how many bytes the unread bodies hold; the journal's byte budget drops the oldest first. */
  keptBytes: number;
  /** Lets go of the bodies the entry holds (the byte budget dropped them; `bodies` no longer reads them). */
  releaseBodies?(): void;
  /** The body arena's sequence number of this entry's last body, when it put any there (see body-arena.ts). */
  bodySequence?: number;
  fault: FaultMark | null;
}

export interface JournalFilter {
  method?: string;
  /** A path glob (see glob.ts). */
  path?: string;
  /** A path prefix such as `/api/v2` or `/v1`. */
  prefix?: string;
  /** An exact status or a class such as `5xx`. */
  status?: string;
  /** Entries after this real time (epoch ms)… */
  sinceMs?: number;
  /** …or after this entry id. */
  sinceId?: number;
  subject?: string;
  faulted?: boolean;
  /** At most this many, the most recent ones. */
  limit?: number;
}

const STATUS = /^(?:[1-5]\d\d|[1-5]xx)$/i;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;
export const MAX_LIMIT = 100_000;

const text = (query: Record<string, unknown>, name: string): string | undefined => {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '') throw invalid(`"${name}" must be given once, not empty`);
  return value;
};

/** The filter of `?method=…&path=…&…`, or a 400 naming the parameter that cannot be read. */
export function parseFilter(query: Record<string, unknown>): JournalFilter {
  const filter: JournalFilter = {};
  const method = text(query, 'method');
  if (method !== undefined) filter.method = method.toUpperCase();
  const path = text(query, 'path');
  if (path !== undefined) filter.path = path;
  const prefix = text(query, 'prefix');
  if (prefix !== undefined) filter.prefix = prefix;
  const status = text(query, 'status');
  if (status !== undefined) {
    if (!STATUS.test(status)) throw invalid('"status" must be a status such as 503 or a class such as 5xx');
    filter.status = status.toLowerCase();
  }
  const since = text(query, 'since');
  if (since !== undefined) {
    if (/^\d+$/.test(since)) filter.sinceId = Number(since);
    else if (RFC3339.test(since) && !Number.isNaN(Date.parse(since))) filter.sinceMs = Date.parse(since);
    else throw invalid('"since" must be an RFC 3339 time such as 2030-01-01T00:00:00Z or an entry id');
  }
  const subject = text(query, 'token-accessor');
  if (subject !== undefined) filter.subject = subject;
  const faulted = text(query, 'faulted');
  if (faulted !== undefined) {
    if (faulted !== 'true' && faulted !== 'false') throw invalid('"faulted" must be true or false');
    filter.faulted = faulted === 'true';
  }
  const limit = text(query, 'limit');
  if (limit !== undefined) {
    if (!/^\d+$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT)
      throw invalid(`"limit" must be an integer from 1 to ${MAX_LIMIT}`);
    filter.limit = Number(limit);
  }
  return filter;
}

export function matchesFilter(record: JournalRecord, filter: JournalFilter): boolean {
  if (filter.method !== undefined && record.method !== filter.method) return false;
  if (filter.prefix !== undefined && !record.path.startsWith(filter.prefix)) return false;
  if (filter.path !== undefined && !globMatches(filter.path, record.path)) return false;
  if (filter.status !== undefined) {
    const status = record.status === null ? '' : String(record.status);
    if (filter.status.endsWith('xx') ? status[0] !== filter.status[0] : status !== filter.status) return false;
  }
  if (filter.sinceMs !== undefined && record.timeMs <= filter.sinceMs) return false;
  if (filter.sinceId !== undefined && record.id <= filter.sinceId) return false;
  if (filter.subject !== undefined && record.subject !== filter.subject) return false;
  if (filter.faulted !== undefined && (record.fault !== null) !== filter.faulted) return false;
  return true;
}

/** A record as `GET /_emulator/requests` shows it. */
export function journalEntry(record: JournalRecord): Record<string, unknown> {
  const bodies = record.bodies();
  return {
    id: record.id,
    'request-id': record.requestId,
    time: new Date(record.timeMs).toISOString(),
    'virtual-time': new Date(record.virtualMs).toISOString(),
    method: record.method,
    path: record.path,
    query: Object.fromEntries(new URLSearchParams(record.query)),
    status: record.status,
    'duration-ms': record.durationMs,
    'token-accessor': record.subject,
    'request-body': bodies.request ?? null,
    'response-body': bodies.response ?? null,
    fault: record.fault,
  };
}

type Listener = (record: JournalRecord) => void;

/** Defined with the bodies (capture.ts), which watched.ts reads without importing the journal; readers find it here. */
export { DROPPED_BODY };
const DROPPED = { request: DROPPED_BODY, response: DROPPED_BODY };
const droppedBodies = () => DROPPED;

/** An entry's bodies go (the byte budget dropped them); its metadata stays. */
function dropBodies(record: JournalRecord): void {
  record.keptBytes = 0;
  record.bodies = droppedBodies;
  record.releaseBodies?.();
}

/** The most body bytes the journal holds at once (a ring of 10,000 small JSON bodies fits well within it). */
export const JOURNAL_BODY_BUDGET = 64 * 1024 * 1024;

/**
 * The request journal: a ring of the last `size` requests, oldest overwritten first, and the
 * listeners of the live stream. Ids grow by one per request and are never reused, so `since=<id>`
 * resumes where a reader left off.
 *
 * A watched request is kept as columns (see entry-columns.ts) until someone reads it; any other
 * record, and an entry once read, is kept as the object itself.
 */
export class Journal {
  /** Each slot's entry id (0: empty), body bytes, and the arena sequence number of its last body (0: none). */
  private readonly ids: Float64Array;
  private readonly heldBytes: Float64Array;
  private readonly bodySequences: Float64Array;
  /** Whether the byte budget dropped a columnar entry's bodies. */
  private readonly dropped: Uint8Array;
  private readonly objects: (JournalRecord | undefined)[];
  private readonly columns: EntryColumns;
  private nextId = 1;
  private readonly listeners = new Set<Listener>();
  /** Body bytes the ring holds, and the oldest id whose bodies may still count in them. */
  private keptBytes = 0;
  private oldestKept = 1;
  /** Where entries keep body text, outside the JS heap; room for the budget's bytes and as many again to spare. */
  readonly arena: BodyArena;

  constructor(
    readonly size: number,
    private readonly bodyBudget = JOURNAL_BODY_BUDGET,
  ) {
    this.ids = new Float64Array(size);
    this.heldBytes = new Float64Array(size);
    this.bodySequences = new Float64Array(size);
    this.dropped = new Uint8Array(size);
    this.objects = new Array<JournalRecord | undefined>(size).fill(undefined);
    this.columns = new EntryColumns(size);
    this.arena = new BodyArena(Math.ceil((2 * bodyBudget) / BODY_CHUNK_BYTES));
  }

  /** The body bytes the ring holds now (for tests and the soak). */
  get bodyBytes(): number {
    return this.keptBytes;
  }

  /** The id the next record gets. */
  allocateId(): number {
    return this.nextId++;
  }

  add(record: JournalRecord): void {
    const slot = record.id % this.size;
    if (this.ids[slot] !== 0) {
      this.keptBytes -= this.heldBytes[slot] as number;
      // Its bytes stay readable until newer bodies need the room (a reader may still hold the entry).
      if (this.bodySequences[slot] !== 0) this.arena.release(this.bodySequences[slot] as number);
    }
    this.ids[slot] = record.id;
    this.heldBytes[slot] = record.keptBytes;
    this.bodySequences[slot] = record.bodySequence ?? 0;
    this.keptBytes += record.keptBytes;
    if (record instanceof WatchedRequest) {
      record.keepIn(this.columns, slot);
      this.dropped[slot] = 0;
      this.objects[slot] = undefined;
    } else this.objects[slot] = record;
    this.keepWithinBudget(record.id);
    // Most requests have no stream open to hear of them.
    if (this.listeners.size > 0) for (const listener of this.listeners) listener(record);
  }

  /**
   * Bounds the journal by bytes as well as by entries: while the unread bodies exceed the budget,
   * the oldest entries lose theirs (and keep their metadata). The newest entry is never trimmed.
   */
  private keepWithinBudget(newest: number): void {
    this.oldestKept = Math.max(this.oldestKept, this.nextId - this.size);
    while (this.keptBytes > this.bodyBudget && this.oldestKept < newest) {
      const slot = this.oldestKept % this.size;
      if (this.ids[slot] === this.oldestKept && this.heldBytes[slot] !== 0) {
        this.keptBytes -= this.heldBytes[slot] as number;
        this.heldBytes[slot] = 0;
        const object = this.objects[slot];
        if (object === undefined) {
          this.dropped[slot] = 1;
          this.columns.request.kept[slot] = this.columns.response.kept[slot] = null;
        } else dropBodies(object);
        if (this.bodySequences[slot] !== 0) this.arena.release(this.bodySequences[slot] as number);
      }
      this.oldestKept++;
    }
  }

  /** The entry at `slot`, as an object: kept as one from now on, so a second read finds its redactions done. */
  private recordAt(slot: number, id: number): JournalRecord {
    let record = this.objects[slot];
    if (record === undefined) {
      record = WatchedRequest.restored(this.columns, slot, id, this.arena);
      record.keptBytes = this.heldBytes[slot] as number;
      if (this.bodySequences[slot] !== 0) record.bodySequence = this.bodySequences[slot];
      if (this.dropped[slot] === 1) dropBodies(record);
      this.objects[slot] = record;
    }
    return record;
  }

  /** The records that match, oldest first; with `limit`, the most recent `limit` of them. */
  find(filter: JournalFilter): JournalRecord[] {
    const found: JournalRecord[] = [];
    const first = Math.max(1, this.nextId - this.size);
    for (let id = first; id < this.nextId; id++) {
      const slot = id % this.size;
      if (this.ids[slot] !== id) continue;
      const record = this.recordAt(slot, id);
      if (matchesFilter(record, filter)) found.push(record);
    }
    return filter.limit !== undefined && found.length > filter.limit ? found.slice(found.length - filter.limit) : found;
  }

  count(filter: JournalFilter): number {
    return this.find({ ...filter, limit: undefined }).length;
  }

  clear(): number {
    let removed = 0;
    for (let id = Math.max(1, this.nextId - this.size); id < this.nextId; id++) if (this.ids[id % this.size] === id) removed++;
    this.ids.fill(0);
    this.objects.fill(undefined);
    this.columns.forgetBodies();
    this.keptBytes = 0;
    this.arena.releaseAll();
    return removed;
  }

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
