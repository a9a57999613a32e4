import { describe, expect, it } from 'vitest';
import { ENGINES } from '../../../src/secrets/plugin.js';
import { compilePattern, PathTable } from '../../../src/secrets/framework/paths.js';
import type { Backend, PathSpec } from '../../../src/secrets/framework/types.js';

/**
 * The path table skips a pattern whose literal first segment the path is not under before it
 * runs the pattern's expression. That must never change which pattern wins: the answer is the
 * same as trying every expression in table order.
 */
const spec = (pattern: string): PathSpec => ({ pattern, summary: pattern, operations: {} });

function everyExpression(paths: readonly PathSpec[], path: string): { pattern: string; params: Record<string, string> } | undefined {
  for (const candidate of paths) {
    const found = compilePattern(candidate.pattern).exec(path);
    if (found) return { pattern: candidate.pattern, params: { ...found.groups } };
  }
  return undefined;
}

function expectSameAnswers(backend: Backend, paths: string[]): void {
  const table = new PathTable(backend);
  for (const path of paths) {
    const match = table.match(path);
    expect(match && { pattern: match.spec.pattern, params: match.params }, path).toEqual(everyExpression(backend.paths, path));
  }
}

describe('path table', () => {
  it('answers as trying every expression in order, for literal, captured and empty first segments', () => {
    const backend: Backend = {
      type: 'test',
      paths: [
        '',
        'keys',
        'keys/:name',
        'keys/:name/rotate',
        ':name/read',
        'encrypt/:name',
        'encrypt',
        'enc/:rest*',
        ':all*',
        'x.y/:name',
      ].map(spec),
    };
    const paths = [
      '',
      '/',
      'keys',
      'keys/',
      'keysx',
      'keys/a',
      'keys/a/',
      'keys/a/rotate',
      'keys/a/b',
      'encrypt',
      'encrypt/',
      'encrypt/k',
      'encryptx/k',
    ];
    expectSameAnswers(backend, [...paths, 'enc/a/b/c', 'enc', 'x.y/z', 'xzy/z', 'other/read', 'a/b/c/d', 'keys//a']);
  });

  it('answers as trying every expression in order for the transit, KV and cubbyhole tables', () => {
    // Their factories only keep what they are given until a request comes: a stand-in context builds them.
    const context = { store: { db: {} }, clock: {}, scheduler: {}, mounts: {} } as never;
    for (const type of ['transit', 'kv', 'cubbyhole']) {
      const backend = ENGINES.get(type)?.(context);
      expect(backend?.paths.length, type).toBeGreaterThan(0);
      const samples = (backend?.paths ?? []).flatMap(({ pattern }) => {
        const filled = pattern.replace(/:[A-Za-z_][A-Za-z0-9_]*\*?/g, 'v');
        return [filled, `${filled}/`, `${filled}/extra`, filled.replace(/^[^/]*/, 'zz'), filled.replace(/^[^/]*/, (head) => `${head}x`)];
      });
      if (backend) expectSameAnswers(backend, samples);
    }
  });
});
