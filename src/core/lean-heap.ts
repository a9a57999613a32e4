/**
 * The V8 flags the server process sets for itself (dist/main.js, scripts/launcher.mjs) once it is
 * ready, each unless the command line already names that flag.
 *
 * Under a steady load the server's live heap stays flat (about 45 MB in heap snapshots taken 60 s
 * apart), but with V8's defaults its RSS does not: per-request objects that outlive two scavenges
 * are promoted into an old generation allowed to grow up to four times its live size before a
 * full collection. In the bench's soak that was a peak of 298 MB against 110 MB idle (issue 31's
 * goal: under twice the idle server's). Two flags keep it lean at a small CPU cost:
 * - `--heap-growing-percent=30`: the old generation may grow by 30% over its live size before a
 *   full collection (V8's default factor is 1.1 to 4, by how fast the heap allocates).
 *   Soak of 60 s here: peak 167 MB against 111 MB idle (1.5), growth after the warm-up -0.8%.
 * - `--no-concurrent-array-buffer-sweeping`: ArrayBuffers that die young (Buffers a request makes:
 *   body chunks, cipher output, a large answer) are freed during the scavenge, not by a background
 *   task after it. Until they are freed V8 counts their bytes as external memory allocated since
 *   the last full collection, and it adds that count to the old generation when it checks the 30%
 *   right after each scavenge: with the sweep left to the background, every buffer made since the
 *   scavenge before still counted then. Under a load of transit batches of 100 x 1 KB (about 0.6 MB
 *   of Buffers each) that started a full collection every two or three scavenges, 14-18 per 1000
 *   batches, where the old generation had grown by 1-2 MB; with this flag 2-4 per 1000.
 *
 * The young generation is not bounded: V8 sizes it when the heap is set up, so
 * `--max-semi-space-size` set at run time changes nothing (it grows to 2 x 16 MB either way; only
 * a command line's flag bounds it).
 * `--optimize-for-size`, used before, met the same goals (peak 1.37 times idle) but costs far more
 * CPU: it trades code speed for size. Server CPU per request, same build, alternating rounds: a
 * cubbyhole read 253 -> 160 µs, a workspace show 233 -> 133 µs, a transit encrypt 480 -> 327 µs.
 *
 * They are set at run time (`v8.setFlagsFromString`): NODE_OPTIONS may not carry them, and `node
 * dist/main.js` is how the server is started. The collector reads them at each collection, so
 * they take effect from the first one after they are set. They are set once the server is ready,
 * not before: V8 keeps a code cache only for the flags it was made under, and Node's own cache of
 * its built-in modules was made under V8's defaults, so every built-in a start-up loaded after
 * them was compiled from source (some 70 by ready: 15-20 ms of a start-up's CPU). The server's
 * own code cache is made under the defaults too: `V8_DEFAULTS` puts them back while it is
 * written (scripts/launcher.mjs).
 */
export const LEAN_HEAP_FLAGS = ['--heap-growing-percent=30', '--no-concurrent-array-buffer-sweeping'] as const;

/**
 * V8's default value of each flag above (`node --v8-options` lists them). V8 tells a code cache's
 * flags by the flags that differ from their defaults, so with these set again a cache is made for
 * the flags a start-up reads it under.
 */
const V8_DEFAULTS: Readonly<Record<string, string>> = {
  'heap-growing-percent': '--heap-growing-percent=0',
  'concurrent-array-buffer-sweeping': '--concurrent-array-buffer-sweeping',
};

/** The flag's name as V8 reads it: dashes and underscores alike, without a `no`, `no-` or `no_` prefix or a value. */
function flagName(argument: string): string | undefined {
  const match = /^--(?:no[-_]?)?([a-z0-9_-]+)(?:=|$)/i.exec(argument);
  return match?.[1]?.replaceAll('_', '-').toLowerCase();
}

/** The flags to set for a process started with `execArgv`: those its command line did not choose already. */
export function leanHeapFlags(execArgv: readonly string[]): string[] {
  const named = new Set(execArgv.map(flagName));
  return LEAN_HEAP_FLAGS.filter((flag) => !named.has(flagName(flag)));
}

/** Each of `flags` (from `leanHeapFlags`) set back to V8's default value, in the same order. */
export function defaultHeapFlags(flags: readonly string[]): string[] {
  return flags.map((flag) => {
    const name = flagName(flag);
    const byDefault = name === undefined ? undefined : V8_DEFAULTS[name];
    if (byDefault === undefined) throw new Error(`no V8 default known for ${flag}`);
    return byDefault;
  });
}
