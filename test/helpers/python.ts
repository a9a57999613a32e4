import { spawn, spawnSync } from 'node:child_process';

/**
 * Running Python scripts with hvac (Debian's python3-hvac), the real secrets-API client. Debian
 * installs it for the system interpreter, which may not be the first `python3` on PATH, so both
 * are tried.
 */
const INTERPRETERS = ['python3', '/usr/bin/python3'];
export const hvacInterpreter = INTERPRETERS.find(
  (candidate) => spawnSync(candidate, ['-c', 'import hvac'], { stdio: 'ignore' }).status === 0,
);
export const missingHvacReason = 'hvac is not importable by python3 or /usr/bin/python3 (apt-get install -y python3-hvac)';

/** Runs `script` on stdin; asynchronous, because the server it talks to runs in this process. */
export function runPython(
  command: string,
  script: string,
  env: Record<string, string>,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, ['-'], { env: { ...process.env, ...env }, timeout: 60_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    child.stdin.end(script);
  });
}
