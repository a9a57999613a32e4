import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultHeapFlags, LEAN_HEAP_FLAGS, leanHeapFlags } from '../../src/core/lean-heap.js';

// Issue 31 item 6: dist/main.js bounds V8's heap growth unless its command line chose already.

describe('the V8 flags the server sets for itself', () => {
  it('bounds the old generation growth and sweeps young buffers in the scavenge, by default', () => {
    const all = ['--heap-growing-percent=30', '--no-concurrent-array-buffer-sweeping'];
    expect(LEAN_HEAP_FLAGS).toEqual(all);
    expect(leanHeapFlags([])).toEqual(all);
  });

  it('keeps them beside other heap or debugging flags', () => {
    expect(leanHeapFlags(['--max-old-space-size=512', '--enable-source-maps', '--inspect'])).toEqual([...LEAN_HEAP_FLAGS]);
  });

  it.each([
    ['--heap-growing-percent=100', ['--no-concurrent-array-buffer-sweeping']],
    ['--heap_growing_percent=50', ['--no-concurrent-array-buffer-sweeping']],
    ['--concurrent-array-buffer-sweeping', ['--heap-growing-percent=30']],
    ['--no_concurrent_array_buffer_sweeping', ['--heap-growing-percent=30']],
    ['--noconcurrent-array-buffer-sweeping', ['--heap-growing-percent=30']],
  ])('leaves a flag to a command line that says %s', (flag, left) => {
    expect(leanHeapFlags(['--enable-source-maps', flag])).toEqual(left);
  });

  it('is not fooled by a flag that only starts the same way', () => {
    expect(leanHeapFlags(['--heap-growing-percent-please=1', '--heap-growing', '--concurrent-array-buffer'])).toEqual([...LEAN_HEAP_FLAGS]);
  });
});

describe('the same flags at their V8 defaults', () => {
  it('names each flag again with the default value V8 lists for it', () => {
    expect(defaultHeapFlags(LEAN_HEAP_FLAGS)).toEqual(['--heap-growing-percent=0', '--concurrent-array-buffer-sweeping']);
    expect(defaultHeapFlags(['--heap-growing-percent=30'])).toEqual(['--heap-growing-percent=0']);
    expect(defaultHeapFlags([])).toEqual([]);
    const listed = execFileSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
    for (const flag of defaultHeapFlags(LEAN_HEAP_FLAGS)) expect(listed).toContain(`default: ${flag}`);
  });

  it('refuses a flag it knows no default for', () => {
    expect(() => defaultHeapFlags(['--max-old-space-size=512'])).toThrow(/no V8 default/);
  });

  // What dist/main.js relies on: a code cache made with the flags set back is read by a process
  // that never set them, where one made with the flags set is refused.
  it('makes a code cache that a process with V8 default flags accepts', () => {
    const directory = mkdtempSync(join(tmpdir(), 'understudy-lean-heap-'));
    const cacheFile = join(directory, 'script.cache');
    const run = (code: string, ...args: string[]) =>
      execFileSync(process.execPath, ['--input-type=module', '-e', code, '--', ...args], { encoding: 'utf8' }).trim();
    const source = JSON.stringify('function twice(n) { return n * 2 }; twice(21);');
    const write = [
      "import v8 from 'node:v8'; import vm from 'node:vm'; import { writeFileSync } from 'node:fs';",
      `const script = new vm.Script(${source}); script.runInThisContext();`,
      'const [file, ...flags] = process.argv.slice(1);',
      'for (const flag of flags) v8.setFlagsFromString(flag);',
      'writeFileSync(file, script.createCachedData());',
    ].join('\n');
    const read = [
      "import vm from 'node:vm'; import { readFileSync } from 'node:fs';",
      `const script = new vm.Script(${source}, { cachedData: readFileSync(process.argv[1]) });`,
      'console.log(script.cachedDataRejected ? "refused" : "accepted");',
    ].join('\n');
    try {
      run(write, cacheFile, ...LEAN_HEAP_FLAGS);
      expect(run(read, cacheFile)).toBe('refused');
      run(write, cacheFile, ...LEAN_HEAP_FLAGS, ...defaultHeapFlags(LEAN_HEAP_FLAGS));
      expect(run(read, cacheFile)).toBe('accepted');
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });
});
