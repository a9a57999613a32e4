import { describe, expect, it } from 'vitest';
import { BODY_CHUNK_BYTES, BodyArena, type BodyPlace } from '../../../src/control/harness/body-arena.js';

/** Writes a body and answers a copy of where it went (the arena reuses its `written`). */
const put = (arena: BodyArena, body: string | Buffer): BodyPlace => {
  expect(arena.write(body)).toBe(true);
  return { ...arena.written };
};
const get = (arena: BodyArena, place: BodyPlace): string | null =>
  place.chunk === null ? null : arena.read(place.chunk, place.generation, place.offset, place.length);

/** A body of about `bytes` characters, told apart by `n`. */
const bodyOf = (n: number, bytes: number): string => `{"n":${n},"pad":"${'x'.repeat(bytes)}"}`;

describe('the journal body arena', () => {
  it('gives back text and bytes as written, whatever their characters', () => {
    const arena = new BodyArena(4);
    const text = '{"name":"Zoë ✓ 𝄞","empty":""}';
    const bytes = Buffer.from('{"raw":true}');
    const textPlace = put(arena, text);
    const bytesPlace = put(arena, bytes);
    expect(get(arena, textPlace)).toBe(text);
    expect(get(arena, bytesPlace)).toBe('{"raw":true}');
    expect(textPlace.length).toBe(Buffer.byteLength(text));
  });

  it('grows while the bodies it holds are kept, and reuses its room once they are released', () => {
    const arena = new BodyArena(8);
    const bodyBytes = BODY_CHUNK_BYTES / 8;
    const kept = Array.from({ length: 20 }, (_, n) => put(arena, bodyOf(n, bodyBytes)));
    // 20 bodies of an eighth of a chunk (each reserving 3 bytes a character) need more than one chunk: every one is still there.
    expect(kept.map((place, n) => get(arena, place) === bodyOf(n, bodyBytes))).toEqual(kept.map(() => true));
    arena.releaseAll();
    const chunks = new Set(kept.map((place) => place.chunk));
    const later = Array.from({ length: 20 }, (_, n) => put(arena, bodyOf(100 + n, bodyBytes)));
    // Released, the old chunks are written again rather than new ones made.
    expect(later.every((place) => chunks.has(place.chunk))).toBe(true);
    expect(get(arena, later[19] as BodyPlace)).toBe(bodyOf(119, bodyBytes));
    expect(get(arena, kept[0] as BodyPlace)).toBeNull();
  });

  it('past its most chunks, overwrites the oldest bodies, which then read as gone', () => {
    const arena = new BodyArena(2);
    const bodyBytes = BODY_CHUNK_BYTES / 4;
    const places = Array.from({ length: 12 }, (_, n) => put(arena, bodyOf(n, bodyBytes)));
    expect(get(arena, places[0] as BodyPlace)).toBeNull();
    expect(get(arena, places[11] as BodyPlace)).toBe(bodyOf(11, bodyBytes));
  });

  it('refuses a body larger than a chunk', () => {
    expect(new BodyArena(2).write(Buffer.alloc(BODY_CHUNK_BYTES + 1))).toBe(false);
  });
});
