/**
 * The V8 flag the server process sets for itself (dist/main.js, scripts/launcher.mjs) before it
 * compiles the server bundle, unless the command line already says either way.
 *
 * Under a steady load the server's live heap stays flat (about 45 MB in heap snapshots taken 60 s
 * apart), but with V8's defaults its RSS does not: per-request objects that outlive two scavenges
 * are promoted, and the old generation is allowed to fill with them up to its first limit (around
 * 100 MB) before a full collection runs, beside a young generation grown to 2 x 16 MB. That was
 * issue 31's soak: +190 MB in the first 50 s, then a plateau. `--optimize-for-size` makes V8
 * size both for memory (a conservative growing factor for the old generation, a young generation
 * that shrinks again), which keeps the soak's peak RSS near 1.4 times the idle server's; the CPU
 * per request measured the same within noise (README, "Benchmarks").
 *
 * It is set at run time (`v8.setFlagsFromString`): NODE_OPTIONS may not carry it, and `node
 * dist/main.js` is how the server is started. It is read by the collector at each collection, so
 * it takes effect from the first one. Set before the bundle is compiled, V8's code cache is made
 * and read under the same flags.
 */
export const LEAN_HEAP_FLAG = '--optimize-for-size';

/** Whether the command line names the flag itself (`--optimize-for-size`, `--no-optimize_for_size`, …). */
function namesTheFlag(argument: string): boolean {
  return /^--(no-?)?optimize[-_]for[-_]size(=|$)/.test(argument);
}

/** The flags to set for a process started with `execArgv`: none when its command line chose already. */
export function leanHeapFlags(execArgv: readonly string[]): string[] {
  return execArgv.some(namesTheFlag) ? [] : [LEAN_HEAP_FLAG];
}
