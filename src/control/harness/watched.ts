import { redactUrl } from '../../core/redact.js';
import type { BodyArena, BodyChunk } from './body-arena.js';
import { captureBody, DROPPED_BODY, heldBytes, journalBody, secretBody, shownBody } from './capture.js';
import type { BodyColumns, EntryColumns } from './entry-columns.js';
import type { FaultMark, JournalRecord } from './journal.js';

/** Stands for a body copied into the journal's arena (see body-arena.ts). */
const IN_ARENA = Symbol('in the body arena');

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
  /** The response body as sent (see `captureBody`), and whether it is to be read as JSON. */
  responseBody: unknown = null;
  responseJson = false;
  private requestBody: unknown = null;
  private requestJson = false;
  /** Where the bodies copied into the arena lie (see `BodyArena.written`); chunk null for a body kept otherwise. */
  private requestChunk: BodyChunk | null = null;
  private requestGeneration = 0;
  private requestOffset = 0;
  private requestLength = 0;
  private responseChunk: BodyChunk | null = null;
  private responseGeneration = 0;
  private responseOffset = 0;
  private responseLength = 0;
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
   * anything else kept by reference; `wireBytes` is the request's `Content-Length`. The two
   * bodies' places are flat fields, not an object each: an entry lives until the ring overwrites
   * it, and every object it holds is promoted and marked with it.
   */
  captureRequest(body: unknown, json: boolean, wireBytes: number, arena: BodyArena): void {
    if (this.secretBodies) {
      this.requestBody = this.responseBody = secretBody();
      return;
    }
    this.arena = arena;
    const rules = this.rules;
    this.requestJson = json;
    this.requestBody = captureBody(body, json, rules);
    this.keptBytes = heldBytes(this.requestBody, wireBytes);
    if (this.isText(this.requestBody) && arena.write(this.requestBody)) {
      const place = arena.written;
      this.requestBody = IN_ARENA;
      this.requestChunk = place.chunk;
      this.requestGeneration = place.generation;
      this.requestOffset = place.offset;
      this.requestLength = place.length;
      this.bodySequence = place.sequence;
    }
    this.responseBody = captureBody(this.responseBody, this.responseJson, rules);
    this.keptBytes += heldBytes(this.responseBody, 0);
    if (this.isText(this.responseBody) && arena.write(this.responseBody)) {
      const place = arena.written;
      this.responseBody = IN_ARENA;
      this.responseChunk = place.chunk;
      this.responseGeneration = place.generation;
      this.responseOffset = place.offset;
      this.responseLength = place.length;
      this.bodySequence = place.sequence;
    }
  }

  private isText(kept: unknown): kept is string | Buffer {
    return typeof kept === 'string' || Buffer.isBuffer(kept);
  }

  bodies(): { request: unknown; response: unknown } {
    this.redactedBodies ??= {
      request:
        this.requestBody === IN_ARENA
          ? this.fromArena(this.requestChunk, this.requestGeneration, this.requestOffset, this.requestLength, this.requestJson)
          : shownBody(this.requestBody, this.requestJson, this.rules),
      response:
        this.responseBody === IN_ARENA
          ? this.fromArena(this.responseChunk, this.responseGeneration, this.responseOffset, this.responseLength, this.responseJson)
          : shownBody(this.responseBody, this.responseJson, this.rules),
    };
    return this.redactedBodies;
  }

  /** A body copied into the arena, as the entry shows it; one overwritten since (the arena outgrew its bound) shows as dropped. */
  private fromArena(chunk: BodyChunk | null, generation: number, offset: number, length: number, json: boolean): unknown {
    const text = chunk === null || this.arena === null ? null : this.arena.read(chunk, generation, offset, length);
    return text === null ? DROPPED_BODY : journalBody(text, this.rules, json);
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
    columns.request.keep(
      slot,
      this.requestJson,
      this.requestChunk,
      this.requestBody,
      this.requestGeneration,
      this.requestOffset,
      this.requestLength,
    );
    columns.response.keep(
      slot,
      this.responseJson,
      this.responseChunk,
      this.responseBody,
      this.responseGeneration,
      this.responseOffset,
      this.responseLength,
    );
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
    const { request, response } = columns;
    entry.requestJson = request.json[slot] === 1;
    entry.requestBody = WatchedRequest.keptAt(request, slot);
    entry.requestChunk = request.chunks[slot] ?? null;
    entry.requestGeneration = request.generations[slot] as number;
    entry.requestOffset = request.offsets[slot] as number;
    entry.requestLength = request.lengths[slot] as number;
    entry.responseJson = response.json[slot] === 1;
    entry.responseBody = WatchedRequest.keptAt(response, slot);
    entry.responseChunk = response.chunks[slot] ?? null;
    entry.responseGeneration = response.generations[slot] as number;
    entry.responseOffset = response.offsets[slot] as number;
    entry.responseLength = response.lengths[slot] as number;
    return entry;
  }

  private static keptAt(side: BodyColumns, slot: number): unknown {
    return side.chunks[slot] == null ? side.kept[slot] : IN_ARENA;
  }

  releaseBodies(): void {
    this.requestBody = null;
    this.responseBody = null;
    this.redactedBodies = undefined;
  }

  private get rules(): 'secrets' | 'platform' {
    return isSecrets(this.rawPath) ? 'secrets' : 'platform';
  }
}
