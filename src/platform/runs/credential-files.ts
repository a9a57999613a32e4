/**
 * The files a run's phase hands to Terraform (token files, CA files), kept in one private
 * directory per run. Its path depends on the run alone, so the plan and the apply name the same
 * files: a saved plan keeps the variables that point at them. When Terraform runs as another user
 * than the server, the directory and its files are that user's, or Terraform could not read them.
 */
import { lstat, lchown, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunUser } from '../../adapters/executor/index.js';

const PLAIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export class CredentialFiles {
  private opened: Promise<string> | undefined;

  constructor(
    private readonly runId: string,
    private readonly owner: RunUser | null,
  ) {}

  private get directory(): string {
    return join(tmpdir(), `understudy-credentials-${this.runId.replace(/[^A-Za-z0-9_-]/g, '')}`);
  }

  /** Writes `text` to `name` (mode 0600, the run user's) and answers the file's absolute path. */
  async write(name: string, text: string): Promise<string> {
    if (!PLAIN_NAME.test(name)) throw new Error(`${JSON.stringify(name)} is not a plain file name`);
    const path = join(await (this.opened ??= this.open()), name);
    await rm(path, { force: true });
    await writeFile(path, text, { mode: 0o600, flag: 'wx' });
    if (this.owner) await lchown(path, this.owner.uid, this.owner.gid);
    return path;
  }

  /** Removes the directory with its files, if this phase made it. */
  async remove(): Promise<void> {
    if (!this.opened) return;
    const directory = await this.opened.catch(() => null);
    if (directory) await rm(directory, { recursive: true, force: true });
  }

  /** Makes the directory (0700), or accepts a left-over one only if it is private and ours or the run user's. */
  private async open(): Promise<string> {
    const directory = this.directory;
    try {
      await mkdir(directory, { mode: 0o700 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const stat = await lstat(directory);
      const owners = [process.getuid?.(), this.owner?.uid];
      if (!stat.isDirectory() || (stat.mode & 0o077) !== 0 || !owners.includes(stat.uid))
        throw new Error(`${directory} exists and is not a private directory of this server`, { cause: error });
    }
    if (this.owner) await lchown(directory, this.owner.uid, this.owner.gid);
    return directory;
  }
}
