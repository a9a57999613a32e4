import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** SoftHSM2, the PKCS#11 peer of the managed-key tests, with a private token directory per test file. */

export const SOFTHSM_LIBRARY = '/usr/lib/softhsm/libsofthsm2.so';

function missing(): string | null {
  if (!existsSync(SOFTHSM_LIBRARY)) return `${SOFTHSM_LIBRARY} is missing (apt-get install softhsm2; .ci/run installs it)`;
  try {
    execFileSync('softhsm2-util', ['--version'], { stdio: 'ignore' });
    return null;
  } catch {
    return 'softhsm2-util is not on PATH (apt-get install softhsm2; .ci/run installs it)';
  }
}

/** Why SoftHSM2 tests cannot run here, or null; with CI set a missing SoftHSM2 is an error. */
export const softHsmMissing = missing();
if (softHsmMissing !== null) {
  if (process.env.CI) throw new Error(`SoftHSM2 is required in CI: ${softHsmMissing}`);
  console.warn(`skipping the SoftHSM2 tests: ${softHsmMissing}`);
}

export interface SoftHsm {
  dir: string;
  /** Initialises a token and returns its (random, decimal) slot number. */
  initToken(label: string, pin: string): string;
  remove(): void;
}

/**
 * A token directory of our own. `SOFTHSM2_CONF` goes into the process environment before anything
 * loads the library: PKCS#11 workers share the environment, and SoftHSM reads it at C_Initialize.
 */
export function softHsm(): SoftHsm {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-softhsm-'));
  mkdirSync(join(dir, 'tokens'));
  const conf = join(dir, 'softhsm2.conf');
  writeFileSync(conf, `directories.tokendir = ${join(dir, 'tokens')}\nobjectstore.backend = file\nlog.level = ERROR\n`);
  process.env.SOFTHSM2_CONF = conf;
  return {
    dir,
    initToken(label, pin) {
      const output = execFileSync('softhsm2-util', ['--init-token', '--free', '--label', label, '--so-pin', '5678', '--pin', pin], {
        env: { ...process.env, SOFTHSM2_CONF: conf },
        encoding: 'utf8',
      });
      const slot = /reassigned to slot (\d+)/.exec(output)?.[1];
      if (!slot) throw new Error(`softhsm2-util did not report a slot: ${output}`);
      return slot;
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
