import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from './process.js';

describe('the server bundle', () => {
  // dist/main.js reads it as latin1 (a byte copy), which is the same text only for ASCII.
  it('is ASCII only, its comments and regular expressions included', () => {
    const bytes = readFileSync(join(ROOT, 'dist', 'server.cjs'));
    expect(bytes.findIndex((byte) => byte > 0x7f)).toBe(-1);
  });
});
