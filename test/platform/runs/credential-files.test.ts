import { mkdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialFiles } from '../../../src/platform/runs/credential-files.js';

// The files a phase hands to Terraform: private, one path per run, the run user's when Terraform
// runs as another user.

const isRoot = process.getuid?.() === 0;

describe('credential files of a run', () => {
  it('writes 0600 files in a 0700 directory whose path depends on the run alone, and removes both', async () => {
    const first = new CredentialFiles('run-cf1', null);
    const path = await first.write('default.token', 'tok');
    expect(readFileSync(path, 'utf8')).toBe('tok');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    // A later phase of the same run names the same file, and may write it again.
    const again = new CredentialFiles('run-cf1', null);
    expect(await again.write('default.token', 'tok2')).toBe(path);
    expect(readFileSync(path, 'utf8')).toBe('tok2');
    await again.remove();
    expect(statSync(dirname(path), { throwIfNoEntry: false })).toBeUndefined();
    await first.remove();
  });

  it('refuses names that would leave the directory', async () => {
    const files = new CredentialFiles('run-cf2', null);
    for (const name of ['../escape', 'a/b', '.hidden', ''])
      await expect(files.write(name, 'x')).rejects.toThrow(/is not a plain file name/);
    await files.remove();
  });

  it('refuses a left-over directory that others can read', async () => {
    const directory = join(tmpdir(), 'understudy-credentials-run-cf3');
    mkdirSync(directory, { mode: 0o755 });
    try {
      await expect(new CredentialFiles('run-cf3', null).write('t', 'x')).rejects.toThrow(/is not a private directory of this server/);
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it.runIf(isRoot)('gives the directory and its files to the run user', async () => {
    const owner = { uid: 65534, gid: 65534, name: 'nobody' };
    const files = new CredentialFiles('run-cf4', owner);
    const path = await files.write('a.token', 'x');
    expect([statSync(path).uid, statSync(path).gid]).toEqual([65534, 65534]);
    expect(statSync(dirname(path)).uid).toBe(65534);
    await files.remove();
  });
});
