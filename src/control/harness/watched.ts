import { redactUrl } from '../../core/redact.js';
import type { BodyArena } from './body-arena.js';
import { secretBody } from './capture.js';
import type { EntryColumns } from './entry-columns.js';
import type { FaultMark, JournalRecord } from './journal.js';
import { KeptBody } from './kept-body.js';

const isSecrets = (path: string) => path === '/v1' || path.startsWith('/v1/');

/**
 * A request the harness watches, from its arrival to its answer, and then its journal entry: one
 * object per request, filled in as the request goes (so the journal adds no closures and no copies
 * to a request nobody inspects). What could hold a secret is worked out only when read: the URL is
 * kept as sent and redacted the first time its path or query is asked for; the bodies are kept by
 * reference and parsed and redacted the first time someone reads the entry. Nothing leaves the
 * journal (list, stream, count filters) except through those redacting reads.
 */
export class WatchedRequest implements JournalRecord {
  requestId = '';
  status: number | null = null;
  durationMs = 0;
  subject: string | null = null;
  keptBytes = 0;
  fault: FaultMark | null = null;
  /** Recorded already (a dropped or held connection has no onResponse). */
  done = false;
  /** A route whose bodies are secrets (KV, transit export, wrapping, state): neither body is kept. */
  secretBodies = false;
  /** The request's body, kept once the request has ended (`captureRequest`). */
  readonly request = new KeptBody();
  /** The response's body: set as sent (and whether it is read as JSON) when the answer goes out, kept with the request's. */
  readonly response = new KeptBody();
  private arena: BodyArena | null = null;
  /** The arena's sequence number of this entry's last body: the journal releases up to it when the entry leaves. */
  bodySequence?: number;
  private redactedPath: string | undefined;
  private redactedQuery = '';
  private redactedBodies: { request: unknown; response: unknown } | undefined;

  constructor(
    readonly id: number,
    /** The URL as sent: never shown; `path` and `query` are its redacted parts. */
    private readonly url: string,
    /** The path as sent (without the query), for choosing rules; never shown. */
    readonly rawPath: string,
    readonly method: string,
    readonly timeMs: number,
    readonly virtualMs: number,
  ) {}

  /** The path, its credential segments redacted (a self-authorizing link carries one). */
  get path(): string {
    if (this.redactedPath === undefined) this.redact();
    return this.redactedPath as string;
  }

  /** The query string after `?`, secret parameters redacted; empty when there is none. */
  get query(): string {
    if (this.redactedPath === undefined) this.redact();
    return this.redactedQuery;
  }

  private redact(): void {
    const url = redactUrl(this.url);
    const mark = url.indexOf('?');
    this.redactedPath = mark === -1 ? url : url.slice(0, mark);
    this.redactedQuery = mark === -1 ? '' : url.slice(mark + 1);
  }

  /** Whether bodies are API JSON (object links carry archives and state files, never read as JSON). */
  get carriesJson(): boolean {
    return !this.rawPath.startsWith('/_archivist/');
  }

  /**
   * Keeps the request body (parsed by now) and the response body: text is copied into `arena`,
   * anything else kept by reference; `wireBytes` is the request's `Content-Length`.
   */
  captureRequest(body: unknown, json: boolean, wireBytes: number, arena: BodyArena): void {
    if (this.secretBodies) {
      this.request.value = this.response.value = secretBody();
      return;
    }
    this.arena = arena;
    const rules = this.rules;
    this.request.value = body;
    this.request.json = json;
    this.keptBytes = this.request.capture(rules, wireBytes, arena) + this.response.capture(rules, 0, arena);
    // The arena's last write is this entry's last body (a write it refused leaves the place before).
    if (this.request.chunk !== null || this.response.chunk !== null) this.bodySequence = arena.written.sequence;
  }

  bodies(): { request: unknown; response: unknown } {
    this.redactedBodies ??= {
      request: this.request.shown(this.arena, this.rules),
      response: this.response.shown(this.arena, this.rules),
    };
    return this.redactedBodies;
  }

  /** Copies the entry into the journal's columns at `slot` (see entry-columns.ts); the object itself is not kept. */
  keepIn(columns: EntryColumns, slot: number): void {
    columns.requestIds[slot] = this.requestId;
    // The same URL as the entry before keeps that entry's string (long promoted): this request's copy dies young.
    const before = columns.urls[slot === 0 ? columns.urls.length - 1 : slot - 1];
    columns.urls[slot] = before === this.url ? before : this.url;
    columns.methods[slot] = this.method;
    columns.times[slot] = this.timeMs;
    columns.virtualTimes[slot] = this.virtualMs;
    columns.statuses[slot] = this.status ?? -1;
    columns.durations[slot] = this.durationMs;
    columns.subjects[slot] = this.subject;
    columns.faults[slot] = this.fault;
    columns.request.keep(slot, this.request);
    columns.response.keep(slot, this.response);
  }

  /** The entry kept at `slot` of the journal's columns, as an object again (for a reader of the journal). */
  static restored(columns: EntryColumns, slot: number, id: number, arena: BodyArena): WatchedRequest {
    const url = columns.urls[slot] as string;
    const mark = url.indexOf('?');
    const status = columns.statuses[slot] as number;
    const entry = new WatchedRequest(
      id,
      url,
      mark === -1 ? url : url.slice(0, mark),
      columns.methods[slot] as string,
      columns.times[slot] as number,
      columns.virtualTimes[slot] as number,
    );
    entry.done = true;
    entry.requestId = columns.requestIds[slot] as string;
    entry.status = status === -1 ? null : status;
    entry.durationMs = columns.durations[slot] as number;
    entry.subject = columns.subjects[slot] ?? null;
    entry.fault = columns.faults[slot] ?? null;
    entry.arena = arena;
    columns.request.restore(slot, entry.request);
    columns.response.restore(slot, entry.response);
    return entry;
  }

  releaseBodies(): void {
    this.request.release();
    this.response.release();
    this.redactedBodies = undefined;
  }

  private get rules(): 'secrets' | 'platform' {
    return isSecrets(this.rawPath) ? 'secrets' : 'platform';
  }
}
