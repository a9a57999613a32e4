import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One tag of a repository and its tree as a gzip tarball (the module at the archive root). */
export interface TaggedArchive {
  tag: string;
  archive: Buffer;
}

/** What the registry needs from a VCS: the tags of a repository and their contents. */
export interface GitSource {
  tags(url: string, wanted: (tag: string) => boolean): Promise<TaggedArchive[]>;
}

export class GitError extends Error {}

/**
 * The transports git may use: the ones the README lists for a connection's `http-url` (a local
 * directory or `file://`, and http(s)). Anything else (`fd::`, `ext::`, ssh, git://) is refused
 * by git itself before it connects, so a connection cannot make the server run a command or
 * hold a request open on a descriptor.
 */
export const ALLOWED_PROTOCOLS = 'file:http:https';

/** The real adapter: the `git` CLI, a bare clone into a temporary directory, `git archive` per tag. */
export class GitCli implements GitSource {
  /** Each git command is killed after `timeoutMs` (a slow or silent server fails the request). */
  constructor(private readonly timeoutMs = 30_000) {}

  async tags(url: string, wanted: (tag: string) => boolean): Promise<TaggedArchive[]> {
    const dir = await mkdtemp(join(tmpdir(), 'understudy-vcs-'));
    // No prompts: a repository that wants credentials fails instead of hanging the request.
    const env = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_ASKPASS: 'true', GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS };
    try {
      try {
        // `--` keeps a URL that starts with a dash from being read as an option.
        await run('git', ['clone', '--bare', '--quiet', '--', url, 'repo.git'], { cwd: dir, env, timeout: this.timeoutMs });
      } catch (error) {
        throw new GitError(`git clone failed: ${((error as { stderr?: string }).stderr ?? (error as Error).message).trim()}`);
      }
      const repo = join(dir, 'repo.git');
      const { stdout } = await run('git', ['-C', repo, 'tag', '--list'], { env, timeout: this.timeoutMs });
      const tags = stdout
        .split('\n')
        .map((line) => line.trim())
        .filter((tag) => tag !== '' && wanted(tag));
      const out: TaggedArchive[] = [];
      for (const tag of tags) {
        const archived = await run('git', ['-C', repo, 'archive', '--format=tar.gz', `refs/tags/${tag}`], {
          env,
          timeout: this.timeoutMs,
          maxBuffer: 200 * 1024 * 1024,
          encoding: 'buffer',
        });
        out.push({ tag, archive: archived.stdout });
      }
      return out;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
