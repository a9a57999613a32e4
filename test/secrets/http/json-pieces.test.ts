import { describe, expect, it } from 'vitest';
import { holdsLongList, jsonBytes, JsonPieces, LONG_LIST } from '../../../src/secrets/http/json-pieces.js';

/** The bytes `jsonBytes` writes must be JSON.stringify's, and one newline, for every shape. */
function expectSameBytes(value: unknown): void {
  const expected = Buffer.from(`${JSON.stringify(value)}\n`);
  expect(jsonBytes(value).equals(expected)).toBe(true);
  expect(new JsonPieces(value).texts.join('')).toBe(JSON.stringify(value));
}

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

const item = (index: number) => ({
  ciphertext: `vault:v1:${Buffer.alloc(40, index).toString('base64')}`,
  key_version: 1,
  reference: `réf-日本-😀-"${index}"\\`,
});

describe('json pieces', () => {
  it('writes an envelope with a long list as JSON.stringify does', () => {
    expectSameBytes({
      request_id: 'id',
      lease_id: '',
      renewable: false,
      lease_duration: 0,
      data: { batch_results: Array.from({ length: 100 }, (_, index) => item(index)) },
      wrap_info: null,
      warnings: ['a "warning" é'],
      auth: null,
    });
  });

  it('leaves out what JSON leaves out, writes null for it in arrays, and keeps key order', () => {
    expectSameBytes({
      b: undefined,
      a: () => 1,
      [Symbol('s')]: 1,
      s: Symbol('s'),
      2: 'two',
      1: 'one',
      nested: { undefinedOnly: undefined, empty: {}, list: [undefined, () => 1, Symbol('x'), null, NaN, -0, Infinity] },
      empty: [],
      'we"ird\\': 'del \x7f, slash /, tilde ~, space',
      ключ: ['日本', 'plain', '', 'tab\tin'],
      last: 'x',
    });
    expectSameBytes({ only: undefined });
    expectSameBytes([]);
    expectSameBytes({});
  });

  it('writes values with toJSON, class instances and null-prototype objects as JSON.stringify does', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare['k'] = [1, 'two', { three: 3 }];
    expectSameBytes({
      when: new Date(0),
      bytes: Buffer.from('hi'),
      point: new Point(1, 2),
      custom: { toJSON: () => ({ replaced: true }) },
      gone: { toJSON: () => undefined },
      inList: [{ toJSON: () => undefined }, { toJSON: () => 'text' }],
      bare,
      unicode: '\u2028\u2029\ud800 lone surrogate, tab\t, nul\u0000',
      list: [new Date(1), Buffer.from('x'), new Point(3, 4), [[1], { a: [2] }]],
    });
  });

  it('takes only long lists of objects for the piece by piece path', () => {
    const long = Array.from({ length: LONG_LIST }, (_, index) => item(index));
    expect(holdsLongList({ batch_results: long })).toBe(true);
    expect(holdsLongList({ batch_results: long.slice(1) })).toBe(false);
    expect(holdsLongList({ keys: long.map((entry) => entry.reference) })).toBe(false);
    expect(holdsLongList(long)).toBe(false);
    expect(holdsLongList(undefined)).toBe(false);
  });
});
