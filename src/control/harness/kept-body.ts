import type { BodyRules } from '../../core/redact.js';
import type { BodyArena, BodyChunk } from './body-arena.js';
import { captureBody, DROPPED_BODY, heldBytes, journalBody, shownBody } from './capture.js';

/**
 * One body of a watched request, the request's or the response's, as the journal keeps it: text
 * copied into the journal's arena (`chunk` and the fields after it say where), or else `value`
 * by reference (a parsed body, a marker, nothing). A request's two bodies are one each.
 */
export class KeptBody {
  /** The body as sent until `capture`; afterwards what is kept when it is not in the arena (null when it is). */
  value: unknown = null;
  /** Whether it is read as JSON. */
  json = false;
  /** Where the body lies in the arena (see `BodyArena.written`); null when it is not there. */
  chunk: BodyChunk | null = null;
  generation = 0;
  offset = 0;
  length = 0;

  /**
   * Keeps the body as captured (see `captureBody`), text copied into `arena`, and answers the bytes
   * it holds (`wireBytes`: its `Content-Length`, when it has one).
   */
  capture(rules: BodyRules, wireBytes: number, arena: BodyArena): number {
    const captured = captureBody(this.value, this.json, rules);
    const bytes = heldBytes(captured, wireBytes);
    if ((typeof captured === 'string' || Buffer.isBuffer(captured)) && arena.write(captured)) {
      const place = arena.written;
      this.value = null;
      this.chunk = place.chunk;
      this.generation = place.generation;
      this.offset = place.offset;
      this.length = place.length;
    } else this.value = captured;
    return bytes;
  }

  /** The body as its entry shows it, redacted; one the arena has overwritten since shows as dropped. */
  shown(arena: BodyArena | null, rules: BodyRules): unknown {
    if (this.chunk === null) return shownBody(this.value, this.json, rules);
    const text = arena === null ? null : arena.read(this.chunk, this.generation, this.offset, this.length);
    return text === null ? DROPPED_BODY : journalBody(text, rules, this.json);
  }

  /** Lets go of the body (the journal's byte budget dropped it). */
  release(): void {
    this.value = null;
    this.chunk = null;
  }
}
