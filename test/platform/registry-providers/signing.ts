import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** A throwaway GnuPG home with one RSA signing key, as a provider author has. */
export interface Signer {
  home: string;
  /** The long key id, upper-case hex, as gpg prints it. */
  keyId: string;
  armor: string;
  /** A detached binary signature of `content` (what `SHA256SUMS.sig` is). */
  sign(content: Buffer): Promise<Buffer>;
  close(): Promise<void>;
}

export async function newSigner(): Promise<Signer> {
  // Short path: gpg-agent's socket lives in the home, and socket paths are limited in length.
  const home = await mkdtemp(join(tmpdir(), 'us-gpg-'));
  await chmod(home, 0o700);
  const env = { ...process.env, GNUPGHOME: home };
  const gpg = (...args: string[]) => run('gpg', ['--batch', '--pinentry-mode', 'loopback', '--passphrase', '', ...args], { env });
  await gpg('--quick-gen-key', 'understudy test signer <signer@understudy.test>', 'rsa2048', 'sign', 'never');
  const { stdout: listing } = await gpg('--with-colons', '--list-keys');
  const keyId = listing
    .split('\n')
    .find((line) => line.startsWith('pub:'))!
    .split(':')[4]!;
  const { stdout: armor } = await gpg('--armor', '--export', keyId);
  return {
    home,
    keyId,
    armor,
    async sign(content) {
      const input = join(home, `doc-${Date.now()}-${Math.random()}`);
      await writeFile(input, content);
      await gpg('--local-user', keyId, '--output', `${input}.sig`, '--detach-sign', input);
      return readFile(`${input}.sig`);
    },
    async close() {
      await run('gpgconf', ['--kill', 'gpg-agent'], { env }).catch(() => undefined);
      await rm(home, { recursive: true, force: true });
    },
  };
}

/**
 * A provider zip as a release holds it: one executable named `terraform-provider-<name>_v<version>`
 * (a shell script: `terraform init` installs and verifies it, never runs it).
 */
export async function providerZip(name: string, version: string, platform = 'linux_amd64'): Promise<{ filename: string; zip: Buffer }> {
  const directory = await mkdtemp(join(tmpdir(), 'us-provider-'));
  try {
    const executable = `terraform-provider-${name}_v${version}`;
    await mkdir(directory, { recursive: true });
    await writeFile(join(directory, executable), `#!/bin/sh\necho "${name} ${version}"\n`, { mode: 0o755 });
    const filename = `terraform-provider-${name}_${version}_${platform}.zip`;
    await run('zip', ['-q', '-X', filename, executable], { cwd: directory });
    return { filename, zip: await readFile(join(directory, filename)) };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
