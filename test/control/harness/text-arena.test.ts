import { describe, expect, it } from 'vitest';
import { ArenaText, TextArena } from '../../../src/control/harness/text-arena.js';

const readBack = (kept: ArenaText | string | Buffer) => (kept instanceof ArenaText ? kept.read() : kept);

describe('the text arena the journal keeps bodies in', () => {
  it('gives back the text and the bytes it was given, counting what the budget counted before', () => {
    const arena = new TextArena();
    const texts = ['{"a":1}', '{"name":"Grüße, 東京 🚀"}', ''];
    const kept = texts.map((text) => arena.keep(text));
    expect(kept.every((entry) => entry instanceof ArenaText)).toBe(true);
    expect(kept.map(readBack)).toEqual(texts);
    expect(kept.map((entry) => (entry as ArenaText).held)).toEqual(texts.map((text) => text.length));
    const bytes = Buffer.from('{"b":[1,2,3]}');
    const keptBytes = arena.keep(bytes);
    expect(Buffer.isBuffer(readBack(keptBytes))).toBe(true);
    expect(readBack(keptBytes)).toEqual(bytes);
    expect((keptBytes as ArenaText).held).toBe(bytes.byteLength);
  });

  it('keeps a string UTF-8 cannot carry (a lone surrogate) as the string itself', () => {
    const lone = '{"a":"\ud800"}';
    expect(new TextArena().keep(lone)).toBe(lone);
  });

  it('still reads an entry after later bodies filled its chunk and moved on to others', () => {
    const arena = new TextArena();
    const first = arena.keep('{"first":true}');
    const filler = 'x'.repeat(200_000);
    for (let i = 0; i < 20; i++) arena.keep(filler);
    expect(readBack(first)).toBe('{"first":true}');
  });
});
