import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface Tagged {
  tag: string;
  files: { name: string; content: string }[];
}

/** A real git repository at `<root>/vcs/acme/<name>` with one commit per tag; the connection base is `<root>/vcs`. */
export async function gitRepository(
  root: string,
  name: string,
  tags: Tagged[],
): Promise<{ base: string; identifier: string; dir: string; addTag: (tagged: Tagged) => Promise<void> }> {
  const base = join(root, 'vcs');
  const dir = join(base, 'acme', name);
  await mkdir(dir, { recursive: true });
  const git = (...args: string[]) =>
    run('git', args, {
      cwd: dir,
      env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@t' },
    });
  await git('init', '--quiet', '-b', 'main');
  const addTag = async ({ tag, files }: Tagged) => {
    for (const file of files) {
      await mkdir(dirname(join(dir, file.name)), { recursive: true });
      await writeFile(join(dir, file.name), file.content);
    }
    await git('add', '-A');
    await git('commit', '--quiet', '--allow-empty', '-m', tag);
    await git('tag', tag);
  };
  for (const tagged of tags) await addTag(tagged);
  return { base, identifier: `acme/${name}`, dir, addTag };
}
