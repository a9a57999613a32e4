import { describe, expect, it } from 'vitest';
import { LEAN_HEAP_FLAG, leanHeapFlags } from '../../src/core/lean-heap.js';

// Issue 31 item 6: dist/main.js sizes V8's heap for memory unless its command line chose already.

describe('the V8 flags the server sets for itself', () => {
  it('sizes the heap for memory by default', () => {
    expect(LEAN_HEAP_FLAG).toBe('--optimize-for-size');
    expect(leanHeapFlags([])).toEqual(['--optimize-for-size']);
  });

  it('keeps it beside other heap or debugging flags', () => {
    expect(leanHeapFlags(['--max-old-space-size=512', '--enable-source-maps', '--inspect'])).toEqual(['--optimize-for-size']);
  });

  it.each([
    ['--no-optimize-for-size'],
    ['--nooptimize-for-size'],
    ['--optimize-for-size'],
    ['--optimize_for_size'],
    ['--no-optimize_for_size'],
  ])('leaves it to a command line that says %s', (flag) => {
    expect(leanHeapFlags(['--enable-source-maps', flag])).toEqual([]);
  });

  it('is not fooled by a flag that only starts the same way', () => {
    expect(leanHeapFlags(['--optimize-for-size-please'])).toEqual(['--optimize-for-size']);
  });
});
