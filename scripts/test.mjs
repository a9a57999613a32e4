// `npm test`: the static checks (lint, format check, type check) and the suite at the same time.
// Run one after another they took about 5 minutes on a 2-core machine; the suite alone leaves more
// than half of both cores idle (its tests mostly wait on sockets, child processes and the
// databases), and the checks need about 2 core-minutes. The checks run at the lowest CPU priority
// (`nice`), so they take only what the suite leaves idle and the suite keeps the CPU it had (its
// tests time nothing, but a starved one still takes longer). Arguments go to vitest
// (`npm test -- test/ops`). The checks' output is printed after the suite's, each under its name;
// the exit code is 1 if anything failed.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CHECKS = ['lint', 'format:check', 'typecheck'];
// Under `npm test`, npm names its own script: run with this Node, it needs no shell on any platform.
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];

/** The checks' process ids, to raise their priority once the suite is done. */
const checkPids = [];

/** Runs a command to its end, its output kept for later unless `live`; resolves with its exit code and output. */
function run(command, args, { live = false } = {}) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', live ? 'inherit' : 'pipe', live ? 'inherit' : 'pipe'] });
    if (!live && child.pid !== undefined) checkPids.push(child.pid);
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ code: 1, output: `${output}${String(error)}\n`, seconds: 0 }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output, seconds: (performance.now() - started) / 1000 }));
  });
}

// `nice` sets the priority before the check starts, so its threads and children inherit it. Where
// there is no `nice` (Windows), the checks run at normal priority.
const hasNice = spawnSync('nice', ['true'], { stdio: 'ignore' }).status === 0;
const lowPriority = (args) => (hasNice ? ['nice', ['-n', '19', ...npm, ...args]] : [npm[0], [...npm.slice(1), ...args]]);
const checks = CHECKS.map((script) => run(...lowPriority(['run', '--silent', script])).then((result) => ({ script, ...result })));
const suite = await run(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)], {
  live: true,
});

// With the suite done the checks no longer take CPU from it: back to normal priority, so that on a
// busy machine they are not left behind everyone else's work. Linux only (the process tree is read
// from /proc), and only where allowed (root, as in CI); elsewhere they finish at the low priority.
/** The process's parent id, or undefined once it has gone. */
function parentOf(pid) {
  try {
    // The second field after the parenthesised command name.
    return Number(
      readFileSync(`/proc/${pid}/stat`, 'utf8')
        .replace(/^.*\) /s, '')
        .split(' ')[1],
    );
  } catch {
    return undefined;
  }
}
function withDescendants(roots) {
  let pids;
  try {
    pids = readdirSync('/proc')
      .filter((name) => /^\d+$/.test(name))
      .map(Number);
  } catch {
    return roots;
  }
  const parents = new Map(pids.map((pid) => [pid, parentOf(pid)]));
  const found = new Set(roots);
  let size = 0;
  while (found.size !== size) {
    size = found.size;
    for (const [pid, parent] of parents) if (found.has(parent)) found.add(pid);
  }
  return [...found];
}
for (const pid of withDescendants(checkPids)) {
  try {
    // The main thread, which does the checks' work; their helper threads keep the low priority.
    setPriority(pid, 0);
  } catch {
    // Not allowed, or already gone.
  }
}

let failed = suite.code !== 0;
for (const check of await Promise.all(checks)) {
  const verdict = check.code === 0 ? 'passed' : `failed (exit ${check.code})`;
  process.stdout.write(`\n── npm run ${check.script}: ${verdict} in ${check.seconds.toFixed(0)} s\n${check.output}`);
  failed ||= check.code !== 0;
}
process.exitCode = failed ? 1 : 0;
