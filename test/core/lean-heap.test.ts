import { describe, expect, it } from 'vitest';
import { LEAN_HEAP_FLAGS, leanHeapFlags } from '../../src/core/lean-heap.js';

// Issue 31 item 6: dist/main.js bounds V8's heap growth unless its command line chose already.

describe('the V8 flags the server sets for itself', () => {
  it('bounds the young generation and the old generation growth, and sweeps young buffers in the scavenge, by default', () => {
    const all = ['--max-semi-space-size=4', '--heap-growing-percent=30', '--no-concurrent-array-buffer-sweeping'];
    expect(LEAN_HEAP_FLAGS).toEqual(all);
    expect(leanHeapFlags([])).toEqual(all);
  });

  it('keeps them beside other heap or debugging flags', () => {
    expect(leanHeapFlags(['--max-old-space-size=512', '--enable-source-maps', '--inspect'])).toEqual([...LEAN_HEAP_FLAGS]);
  });

  it.each([
    ['--max-semi-space-size=16', ['--heap-growing-percent=30', '--no-concurrent-array-buffer-sweeping']],
    ['--max_semi_space_size=32', ['--heap-growing-percent=30', '--no-concurrent-array-buffer-sweeping']],
    ['--heap-growing-percent=100', ['--max-semi-space-size=4', '--no-concurrent-array-buffer-sweeping']],
    ['--heap_growing_percent=50', ['--max-semi-space-size=4', '--no-concurrent-array-buffer-sweeping']],
    ['--concurrent-array-buffer-sweeping', ['--max-semi-space-size=4', '--heap-growing-percent=30']],
    ['--no_concurrent_array_buffer_sweeping', ['--max-semi-space-size=4', '--heap-growing-percent=30']],
  ])('leaves a flag to a command line that says %s', (flag, left) => {
    expect(leanHeapFlags(['--enable-source-maps', flag])).toEqual(left);
  });

  it('is not fooled by a flag that only starts the same way', () => {
    expect(leanHeapFlags(['--max-semi-space-size-please=1', '--heap-growing'])).toEqual([...LEAN_HEAP_FLAGS]);
  });
});
