import { describe, expect, it } from 'vitest';
import { parseJson } from '../../src/core/json.js';

describe('parseJson', () => {
  it('drops __proto__ keys, written plainly or with escapes, at any depth', () => {
    for (const text of [
      '{"__proto__": {"polluted": true}, "kept": 1}',
      '{"\\u005f_proto__": {"polluted": true}, "kept": 1}',
      '{"a": [{"_\\u005fproto\\u005f_": {"polluted": true}, "kept": 1}]}',
    ]) {
      const parsed = parseJson(text) as Record<string, unknown>;
      const holder = (Array.isArray(parsed['a']) ? (parsed['a'] as unknown[])[0] : parsed) as Record<string, unknown>;
      expect(Object.prototype.hasOwnProperty.call(holder, '__proto__')).toBe(false);
      expect(holder['kept']).toBe(1);
      expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    }
  });

  it('parses everything else as JSON.parse does, escapes included', () => {
    for (const text of ['{"a": "x\\u0041y", "b": [1, 2.5, null, true]}', '"proto"', '[]', '{"__proto": 1, "proto__": 2}']) {
      expect(parseJson(text)).toEqual(JSON.parse(text));
    }
  });
});
