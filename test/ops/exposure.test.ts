import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { DEFAULT_SEED, runToExit, tempDir } from './process.js';

// The well-known tokens beyond loopback, and runs that would act as root: refused at start.

const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const base = { UNDERSTUDY_STORE: ':memory:', UNDERSTUDY_PORT: '0', UNDERSTUDY_SEED: DEFAULT_SEED };
const own = { UNDERSTUDY_ADMIN_TOKEN: 'own-admin-token-31', UNDERSTUDY_ROOT_TOKEN: 'own-root-token-31' };

describe('binding beyond loopback', () => {
  it.each(['0.0.0.0', '::', '192.0.2.10', 'understudy.example'])('%s with the default tokens is refused, naming both', (host) => {
    expect(() => loadConfig({ ...base, UNDERSTUDY_HOST: host })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, UNDERSTUDY_HOST: host })).toThrow(/UNDERSTUDY_ADMIN_TOKEN and UNDERSTUDY_ROOT_TOKEN/);
  });

  it('one default token left is enough to refuse, and named', () => {
    expect(() => loadConfig({ ...base, UNDERSTUDY_HOST: '0.0.0.0', UNDERSTUDY_ADMIN_TOKEN: 'own-admin-token-31' })).toThrow(
      /while UNDERSTUDY_ROOT_TOKEN is the well-known default/,
    );
    expect(() => loadConfig({ ...base, UNDERSTUDY_HOST: '0.0.0.0', VAULT_DEV_ROOT_TOKEN_ID: 'own-root' })).toThrow(
      /while UNDERSTUDY_ADMIN_TOKEN is the well-known default/,
    );
  });

  it('own tokens, or the explicit opt-in, bind anywhere; loopback needs neither', () => {
    expect(loadConfig({ ...base, ...own, UNDERSTUDY_HOST: '0.0.0.0' }).host).toBe('0.0.0.0');
    expect(loadConfig({ ...base, UNDERSTUDY_HOST: '0.0.0.0', UNDERSTUDY_ALLOW_INSECURE_BIND: 'true' }).host).toBe('0.0.0.0');
    for (const host of ['127.0.0.1', '127.1.2.3', 'localhost', '::1', '[::1]', '::ffff:127.0.0.1'])
      expect(loadConfig({ ...base, UNDERSTUDY_HOST: host }).host).toBe(host);
    expect(() => loadConfig({ ...base, UNDERSTUDY_ALLOW_INSECURE_BIND: 'yes' })).toThrow(
      /UNDERSTUDY_ALLOW_INSECURE_BIND must be true \| false/,
    );
  });

  it('the server refuses to start, with one line', async () => {
    const refused = await runToExit({ cwd: dir, env: { ...base, UNDERSTUDY_HOST: '0.0.0.0' } });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    expect(refused.stderr.trim()).toMatch(/^understudy: invalid configuration: UNDERSTUDY_HOST=0\.0\.0\.0 reaches beyond this machine/);
  });
});

describe('the terraform executor asked for by name', () => {
  it('refuses to start when runs could not execute as an unprivileged user', async () => {
    const refused = await runToExit({
      cwd: dir,
      env: { ...base, UNDERSTUDY_EXECUTOR: 'terraform', UNDERSTUDY_RUN_USER: 'no-such-user-31' },
    });
    expect(refused.code).toBe(1);
    expect(refused.stdout).toBe('');
    // As root: the user does not exist; as anyone else: only root can switch users.
    expect(refused.stderr.trim()).toMatch(/^understudy: .*UNDERSTUDY_RUN_USER/);
  });
});
