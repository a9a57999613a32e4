/**
 * The V8 flags the server process sets for itself (dist/main.js, scripts/launcher.mjs) before it
 * compiles the server bundle, each unless the command line already names that flag.
 *
 * Under a steady load the server's live heap stays flat (about 45 MB in heap snapshots taken 60 s
 * apart), but with V8's defaults its RSS does not: the young generation grows to 2 x 16 MB, and
 * per-request objects that outlive two scavenges are promoted into an old generation allowed to
 * grow up to four times its live size before a full collection. In the bench's soak that was a
 * peak of 298 MB against 110 MB idle (issue 31's goal: under twice the idle server's).
 *
 * Two bounds keep it lean at a small CPU cost:
 * - `--max-semi-space-size=4`: a young generation of at most 2 x 4 MB;
 * - `--heap-growing-percent=30`: the old generation may grow by 30% over its live size before a
 *   full collection (V8's default factor is 1.1 to 4, by how fast the heap allocates).
 * Soak of 60 s here: peak 167 MB against 111 MB idle (1.5), growth after the warm-up -0.8%.
 *
 * `--optimize-for-size`, used before, met the same goals (peak 1.37 times idle) but costs far more
 * CPU: it also shrinks the young generation to a few MB that every burst of allocation overflows,
 * and trades code speed for size. Server CPU per request, same build, alternating rounds: a
 * cubbyhole read 253 -> 160 µs, a workspace show 233 -> 133 µs, a transit encrypt 480 -> 327 µs.
 *
 * They are set at run time (`v8.setFlagsFromString`): NODE_OPTIONS may not carry them, and `node
 * dist/main.js` is how the server is started. The collector reads them at each collection and
 * when it sizes a space, so they take effect from the first one after they are set. They are set
 * once the server is ready, not before: V8 keeps a code cache only for the flags it was made
 * under, and Node's own cache of its built-in modules was made under V8's defaults, so every
 * built-in a start-up loaded after them was compiled from source (some 70 by ready: 15-20 ms of a
 * start-up's CPU). The server's own code cache is made under the defaults too: `V8_DEFAULTS`
 * puts them back while it is written (scripts/launcher.mjs).
 */
export const LEAN_HEAP_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=30'] as const;

/**
 * V8's default value of each flag above (`node --v8-options` lists them). V8 tells a code cache's
 * flags by the flags that differ from their defaults, so with these set again a cache is made for
 * the flags a start-up reads it under.
 */
const V8_DEFAULTS: Readonly<Record<string, string>> = { 'max-semi-space-size': '0', 'heap-growing-percent': '0' };

/** The flag's name as V8 reads it: dashes and underscores alike, without a `no` prefix or a value. */
function flagName(argument: string): string | undefined {
  const match = /^--(?:no-?)?([a-z0-9_-]+)(?:=|$)/i.exec(argument);
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
    const value = name === undefined ? undefined : V8_DEFAULTS[name];
    if (value === undefined) throw new Error(`no V8 default known for ${flag}`);
    return `--${name}=${value}`;
  });
}
