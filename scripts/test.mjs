// `npm test`: the static checks (lint, format check, type check) and the suite at the same time.
// Run one after another they took about 5 minutes on a 2-core machine; the suite alone leaves more
// than half of both cores idle (its tests mostly wait on sockets, child processes and the
// databases), and the checks need about 2 core-minutes. The checks run at the lowest CPU priority
// (`nice`), so they take only what the suite leaves idle and its timing-sensitive tests (a shutdown
// deadline, the SMTP timeout, the key pool's burst) keep the CPU they had. Arguments go to vitest
// (`npm test -- test/ops`). The checks' output is printed after the suite's, each under its name;
// the exit code is 1 if anything failed.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const CHECKS = ['lint', 'format:check', 'typecheck'];
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Runs a command to its end, its output kept for later unless `live`; resolves with its exit code and output. */
function run(command, args, { live = false } = {}) {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', live ? 'inherit' : 'pipe', live ? 'inherit' : 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk) => (output += chunk));
    child.stderr?.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ code: 1, output: `${output}${String(error)}\n`, seconds: 0 }));
    child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), output, seconds: (performance.now() - started) / 1000 }));
  });
}

// `nice` sets the priority before the check starts, so its threads and children inherit it.
const lowPriority = (args) => (process.platform === 'win32' ? [npm, args] : ['nice', ['-n', '19', npm, ...args]]);
const checks = CHECKS.map((script) => run(...lowPriority(['run', '--silent', script])).then((result) => ({ script, ...result })));
const suite = await run(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', ...process.argv.slice(2)], {
  live: true,
});

let failed = suite.code !== 0;
for (const check of await Promise.all(checks)) {
  const verdict = check.code === 0 ? 'passed' : `failed (exit ${check.code})`;
  process.stdout.write(`\n── npm run ${check.script}: ${verdict} in ${check.seconds.toFixed(0)} s\n${check.output}`);
  failed ||= check.code !== 0;
}
process.exitCode = failed ? 1 : 0;
