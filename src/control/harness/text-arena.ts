/**
 * Body text the journal keeps, held outside V8's heap.
 *
 * Kept as strings, the bodies of the last 10,000 requests (some 2 KB each for a point read) were
 * the largest thing the journal cost a request: every body outlived two scavenges, was copied by
 * both and promoted, and the old generation they filled was marked again and again. Copied into
 * large buffers instead, the string dies young (a scavenge frees it for nothing), and the bytes sit
 * where the collector never looks at them. A body is decoded again when someone reads its entry.
 *
 * Chunks are never reused: an entry keeps its chunk alive by reference, so a reader still holding
 * entries the ring has since overwritten reads what they held, and a chunk is freed by the
 * collector once no entry points into it any more.
 */

/** The size of one chunk: the largest body kept as text (256 KiB characters, see capture.ts) fits whole. */
const CHUNK_BYTES = 1024 * 1024;
/** The most UTF-8 bytes one UTF-16 code unit takes. */
const MAX_BYTES_PER_UNIT = 3;

type WellFormed = string & { isWellFormed(): boolean };

/** Where a body was copied to: decoded back, it is the text (or the bytes) that was kept. */
export class ArenaText {
  constructor(
    private readonly chunk: Buffer,
    private readonly start: number,
    private readonly end: number,
    /** Kept from a Buffer (read back as one) rather than a string. */
    private readonly bytes: boolean,
    /** What the body counted toward the journal's byte budget: a string's length, a Buffer's bytes. */
    readonly held: number,
  ) {}

  read(): string | Buffer {
    return this.bytes ? this.chunk.subarray(this.start, this.end) : this.chunk.toString('utf8', this.start, this.end);
  }
}

export class TextArena {
  private chunk = Buffer.allocUnsafeSlow(0);
  private used = 0;

  /**
   * The body copied into the arena, or the body itself when it does not fit a chunk or is a string
   * UTF-8 cannot carry unchanged (a lone surrogate would come back as U+FFFD).
   */
  keep(body: string | Buffer): ArenaText | string | Buffer {
    const bytes = Buffer.isBuffer(body);
    const room = bytes ? body.byteLength : body.length * MAX_BYTES_PER_UNIT;
    if (room > CHUNK_BYTES || (!bytes && !(body as WellFormed).isWellFormed())) return body;
    if (this.chunk.byteLength - this.used < room) {
      this.chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES);
      this.used = 0;
    }
    const start = this.used;
    this.used += bytes ? body.copy(this.chunk, start) : this.chunk.write(body, start, 'utf8');
    return new ArenaText(this.chunk, start, this.used, bytes, bytes ? body.byteLength : body.length);
  }
}
