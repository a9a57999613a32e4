/**
 * Where a run's Vault token files and CA files live: one private directory per run, at the same
 * path in the plan and the apply phase, because the `tfc_vault_dynamic_credentials` variable that
 * names them is saved in the plan and a saved plan's variables cannot change at apply time.
 * The files are removed at the end of each phase (their tokens are revoked then too).
 */
import { lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function runCredentialsDir(runId: string): string {
  return join(tmpdir(), `understudy-vault-${runId.replace(/[^A-Za-z0-9_-]/g, '')}`);
}

/** Makes the run's directory (0700), or accepts it only if it is a real directory of this user with no access for others. */
export async function openRunCredentialsDir(runId: string): Promise<string> {
  const directory = runCredentialsDir(runId);
  try {
    await mkdir(directory, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const stat = await lstat(directory);
    const ours = stat.isDirectory() && (process.getuid === undefined || stat.uid === process.getuid()) && (stat.mode & 0o077) === 0;
    if (!ours) throw new Error(`${directory} exists and is not a private directory of this server`, { cause: error });
  }
  return directory;
}

/** A regular file, mode 0600, holding `text` as one line: what the Vault provider's token file reader accepts. */
export async function writePrivateFile(directory: string, name: string, text: string): Promise<string> {
  const path = join(directory, name);
  await rm(path, { force: true });
  await writeFile(path, text, { mode: 0o600, flag: 'wx' });
  return path;
}

export async function removeRunCredentialsDir(runId: string): Promise<void> {
  await rm(runCredentialsDir(runId), { recursive: true, force: true });
}
