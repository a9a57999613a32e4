import type { BodyChunk } from './body-arena.js';
import type { FaultMark } from './journal.js';
import type { KeptBody } from './kept-body.js';

/**
 * One side's bodies (request or response) of the journal's watched requests, by ring slot: where
 * the body lies in the arena (chunk null when it is not there), or else what the entry keeps for
 * it (nothing, a marker such as a size, a parsed body), and whether it is read as JSON.
 */
export class BodyColumns {
  readonly kept: unknown[];
  readonly chunks: (BodyChunk | null)[];
  readonly generations: Float64Array;
  readonly offsets: Uint32Array;
  readonly lengths: Uint32Array;
  readonly json: Uint8Array;

  constructor(size: number) {
    this.kept = new Array<unknown>(size).fill(null);
    this.chunks = new Array<BodyChunk | null>(size).fill(null);
    this.generations = new Float64Array(size);
    this.offsets = new Uint32Array(size);
    this.lengths = new Uint32Array(size);
    this.json = new Uint8Array(size);
  }

  /** `body` at `slot`: its place in the arena when it lies there, else what it keeps. */
  keep(slot: number, body: KeptBody): void {
    this.json[slot] = body.json ? 1 : 0;
    this.chunks[slot] = body.chunk;
    this.kept[slot] = body.chunk === null ? body.value : null;
    if (body.chunk === null) return;
    this.generations[slot] = body.generation;
    this.offsets[slot] = body.offset;
    this.lengths[slot] = body.length;
  }

  /** The body kept at `slot`, into `body` (an entry made again for a reader). */
  restore(slot: number, body: KeptBody): void {
    body.json = this.json[slot] === 1;
    body.chunk = this.chunks[slot] ?? null;
    body.value = body.chunk === null ? this.kept[slot] : null;
    body.generation = this.generations[slot] as number;
    body.offset = this.offsets[slot] as number;
    body.length = this.lengths[slot] as number;
  }
}

/**
 * The journal's watched requests as columns, one array per field, indexed by ring slot.
 *
 * Kept as one object per request, an entry lived until the ring overwrote it 10,000 requests
 * later: each was copied by two scavenges, promoted, and then marked by every full collection
 * with its numbers boxed and its fields walked, most of what the journal cost a point read. Here
 * the numbers lie in typed arrays the collector never walks, and the strings an entry keeps are
 * mostly ones every request shares (method, subject); an entry becomes an object again only when
 * someone reads the journal (see `WatchedRequest.restored`).
 */
export class EntryColumns {
  readonly requestIds: string[];
  /** The URL as sent, redacted when the entry is read. */
  readonly urls: string[];
  readonly methods: string[];
  readonly times: Float64Array;
  readonly virtualTimes: Float64Array;
  /** -1 for none: the connection was dropped or held by a fault. */
  readonly statuses: Int16Array;
  readonly durations: Float64Array;
  readonly subjects: (string | null)[];
  readonly faults: (FaultMark | null)[];
  readonly request: BodyColumns;
  readonly response: BodyColumns;

  constructor(size: number) {
    this.requestIds = new Array<string>(size).fill('');
    this.urls = new Array<string>(size).fill('');
    this.methods = new Array<string>(size).fill('');
    this.times = new Float64Array(size);
    this.virtualTimes = new Float64Array(size);
    this.statuses = new Int16Array(size);
    this.durations = new Float64Array(size);
    this.subjects = new Array<string | null>(size).fill(null);
    this.faults = new Array<FaultMark | null>(size).fill(null);
    this.request = new BodyColumns(size);
    this.response = new BodyColumns(size);
  }

  /** Lets go of the bodies kept by reference (a clear: nothing reads them any more). */
  forgetBodies(): void {
    this.request.kept.fill(null);
    this.response.kept.fill(null);
  }
}
