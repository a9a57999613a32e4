/** The size of each piece of the arena: a body the journal keeps is at most 256 K characters (capture.ts), 768 KB as UTF-8. */
export const BODY_CHUNK_BYTES = 1 << 20;
const CHUNK_BYTES = BODY_CHUNK_BYTES;
/** Room reserved for a string: UTF-8 takes at most 3 bytes for a UTF-16 unit. */
const BYTES_PER_CHAR = 3;
/**
 * Bodies written after the newest one the journal let go of, that a chunk's reuse still spares:
 * requests end out of the order of their ids, so a body written a little before one the journal
 * released may belong to an entry it still keeps.
 */
const SPARED_WRITES = 256;

/** One piece of the arena; `next` closes the ring of pieces. */
class Chunk {
  readonly bytes = Buffer.allocUnsafeSlow(CHUNK_BYTES);
  /** Incremented each time the chunk is written from its start again: a body is readable while it is the one it was written under. */
  generation = 0;
  /** The sequence number of the last body written into the chunk. */
  lastWrite = 0;
  next: Chunk = this;
}

/** Where a body lies, as `write` leaves it in `BodyArena.written` (a reused object: reading it must not wait). */
export interface BodyPlace {
  chunk: Chunk | null;
  generation: number;
  offset: number;
  length: number;
  /** The body's sequence number, which the journal hands back to `release`. */
  sequence: number;
}

/**
 * The journal's bodies, as bytes in a ring of 1 MB buffers outside the JS heap.
 *
 * Kept as strings, each journaled answer (some 1.6 KB for an organization read) outlived two
 * scavenges, so it was copied twice and then promoted, and the old generation it filled was
 * marked by every full collection: most of what the journal cost a point read. Here an entry keeps
 * only where its bytes lie, and nothing per request is allocated.
 *
 * Bodies are written one after another, never across two chunks. When the next chunk still holds
 * bodies the journal keeps, a new chunk is put into the ring before it (up to `maxChunks`): the
 * arena grows by what it holds, never by copying, and memory once touched is written again (a
 * first write to a fresh page costs a page fault, which dwarfs the copy). Past `maxChunks` the
 * oldest bodies are overwritten and read as gone (`read` answers null).
 */
export class BodyArena {
  private current: Chunk | null = null;
  private chunks = 0;
  private offset = 0;
  private sequence = 0;
  /** The newest body the journal let go of. */
  private released = 0;
  /** Where the last `write` put its body. */
  readonly written: BodyPlace = { chunk: null, generation: 0, offset: 0, length: 0, sequence: 0 };

  constructor(private readonly maxChunks: number) {}

  /** Copies a body in (text as UTF-8); false when it is too large to keep here. */
  write(body: string | Buffer): boolean {
    const room = typeof body === 'string' ? body.length * BYTES_PER_CHAR : body.byteLength;
    if (room > CHUNK_BYTES) return false;
    const chunk = this.chunkWithRoom(room);
    const length = typeof body === 'string' ? chunk.bytes.write(body, this.offset, room, 'utf8') : body.copy(chunk.bytes, this.offset);
    chunk.lastWrite = ++this.sequence;
    const place = this.written;
    place.chunk = chunk;
    place.generation = chunk.generation;
    place.offset = this.offset;
    place.length = length;
    place.sequence = this.sequence;
    this.offset += length;
    return true;
  }

  /** A body as text, or null when newer bodies have taken its place. */
  read(chunk: Chunk, generation: number, offset: number, length: number): string | null {
    return chunk.generation === generation ? chunk.bytes.toString('utf8', offset, offset + length) : null;
  }

  /** The journal keeps no body written up to `sequence` any more. */
  release(sequence: number): void {
    this.released = Math.max(this.released, sequence);
  }

  /** The journal keeps no body at all any more. */
  releaseAll(): void {
    this.released = this.sequence + SPARED_WRITES;
  }

  /** The chunk to write `room` bytes into at `this.offset`: the current one, the next one, or a new one. */
  private chunkWithRoom(room: number): Chunk {
    let chunk = this.current;
    if (chunk !== null && this.offset + room <= CHUNK_BYTES) return chunk;
    if (chunk === null) {
      chunk = new Chunk();
      this.chunks = 1;
    } else if (chunk.next.lastWrite + SPARED_WRITES > this.released && this.chunks < this.maxChunks) {
      const added = new Chunk();
      added.next = chunk.next;
      chunk.next = added;
      this.chunks++;
      chunk = added;
    } else {
      chunk = chunk.next;
      chunk.generation++;
    }
    this.current = chunk;
    this.offset = 0;
    return chunk;
  }
}

export type { Chunk as BodyChunk };
