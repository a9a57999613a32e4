import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, readEnvironment, SHIPPED_SEED, VARIABLES } from '../../src/config.js';
import { VERSION } from '../../src/core/version.js';
import { DEFAULT_SEED, MAIN, runToExit, startProcess, tempDir } from './process.js';

// Processes run from an empty directory, so a developer's .env in the checkout cannot interfere.
const dir = tempDir();
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const base = { UNDERSTUDY_STORE: ':memory:', UNDERSTUDY_PORT: '0', UNDERSTUDY_SEED: DEFAULT_SEED };

/** A refused start-up: exit 1, nothing on stdout, exactly one line on stderr, which is returned. */
async function refusedLine(env: Record<string, string>): Promise<string> {
  const exit = await runToExit({ cwd: dir, env: { ...base, ...env } });
  expect(exit.code).toBe(1);
  expect(exit.stdout).toBe('');
  const lines = exit.stderr.split('\n').filter((line) => line !== '');
  expect(lines).toHaveLength(1);
  return lines[0] as string;
}

describe.concurrent('an invalid configuration stops the start with one line naming the variable', () => {
  it.each([
    ['UNDERSTUDY_PORT', 'abc'],
    ['UNDERSTUDY_PORT', '70000'],
    ['UNDERSTUDY_DIALECT', 'nope'],
    ['UNDERSTUDY_LOG_LEVEL', 'loud'],
    ['UNDERSTUDY_ADMIN_TOKEN', 'short'],
    ['UNDERSTUDY_LOG_FORMAT', 'fancy'],
    ['UNDERSTUDY_CORS_ORIGINS', 'localhost:3000'],
  ])('%s=%s', async (name, value) => {
    const line = await refusedLine({ [name]: value });
    expect(line).toMatch(new RegExp(`^understudy: invalid configuration: ${name} must be .+`));
    expect(line).toContain(JSON.stringify(value));
  });

  it('a seed file that does not exist', async () => {
    const missing = join(dir, 'no-such-seed.json');
    const line = await refusedLine({ UNDERSTUDY_SEED: missing });
    expect(line).toMatch(/^understudy: /);
    expect(line).toContain(missing);
  });

  it('a seed file that is not JSON', async () => {
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"users": [');
    const line = await refusedLine({ UNDERSTUDY_SEED: broken });
    expect(line).toMatch(/^understudy: .*broken\.json/);
  });

  it('a seed file that does not match the seed schema, naming the field', async () => {
    const invalid = join(dir, 'invalid.json');
    writeFileSync(invalid, JSON.stringify({ users: [{ username: 'a', email: 'a@b.c', 'site-admin': 'yes' }], organizations: [] }));
    const line = await refusedLine({ UNDERSTUDY_SEED: invalid });
    expect(line).toMatch(/^understudy: seed file .*invalid\.json: \/users\/0\/site-admin /);
  });

  it.each([
    ['/proc/nope/x.sqlite', /ENOENT/],
    ['/dev/null/x.sqlite', /unable to open|ENOTDIR/],
  ])('an unusable store %s, naming UNDERSTUDY_STORE and the reason', async (store, reason) => {
    // The process exits by itself (code 1, checked in refusedLine): one that hung would be killed
    // by runToExit's bound and have no exit code.
    const line = await refusedLine({ UNDERSTUDY_STORE: store });
    expect(line).toMatch(new RegExp(`^understudy: UNDERSTUDY_STORE=${store} cannot be used: `));
    expect(line).toMatch(reason);
  });

  it('a store file that is not a database', async () => {
    const text = join(dir, 'not-a-database.sqlite');
    writeFileSync(text, 'plain text, long enough to be read as a database header and refused'.repeat(20));
    const line = await refusedLine({ UNDERSTUDY_STORE: text });
    expect(line).toMatch(/^understudy: UNDERSTUDY_STORE=.*not-a-database\.sqlite cannot be used: .*not a database/);
  });
});

describe('the command line', () => {
  it.each(['--help', '-h'])('%s prints every variable, one line each, and exits 0 without starting', async (flag) => {
    const store = join(dir, `help-${flag}.sqlite`);
    const exit = await runToExit({ cwd: dir, env: { ...base, UNDERSTUDY_STORE: store }, command: [process.execPath, MAIN, flag] });
    expect(exit.code).toBe(0);
    expect(exit.stderr).toBe('');
    const lines = exit.stdout.split('\n');
    for (const variable of VARIABLES) expect(lines.filter((line) => line.trimStart().startsWith(`${variable.name} `))).toHaveLength(1);
    expect(existsSync(store)).toBe(false);
  });

  it('--version prints the version and exits 0 without starting', async () => {
    const store = join(dir, 'version.sqlite');
    const exit = await runToExit({ cwd: dir, env: { ...base, UNDERSTUDY_STORE: store }, command: [process.execPath, MAIN, '--version'] });
    expect(exit.code).toBe(0);
    expect(exit.stdout).toBe(`${VERSION}\n`);
    expect(existsSync(store)).toBe(false);
  });

  it('refuses an unknown argument with a hint, exit 2', async () => {
    const exit = await runToExit({ cwd: dir, env: base, command: [process.execPath, MAIN, '--bogus'] });
    expect(exit.code).toBe(2);
    expect(exit.stderr).toBe('understudy: unknown argument "--bogus"; try --help\n');
  });
});

describe('.env and the environment', () => {
  it('reads .env from the working directory, and the environment wins over it', async () => {
    const cwd = join(dir, 'with-dotenv');
    mkdirSync(cwd);
    writeFileSync(
      join(cwd, '.env'),
      [
        '# a comment',
        'UNDERSTUDY_ADMIN_TOKEN=dotenv-admin-token',
        'UNDERSTUDY_ROOT_TOKEN=dotenv-root',
        'UNDERSTUDY_DIALECT=upstream',
        '',
      ].join('\n'),
    );
    const server = await startProcess({ cwd, env: { ...base, UNDERSTUDY_ROOT_TOKEN: 'env-root' } });
    try {
      expect(server.banner.readyLine).toContain('(dialect upstream,');
      expect(server.banner.exports.TFE_TOKEN).toBe('dotenv-admin-token');
      expect(server.banner.exports.VAULT_TOKEN).toBe('env-root');
      const organization = await fetch(`${server.banner.exports.TFE_ADDRESS}/api/v2/organizations/understudy`, {
        headers: { authorization: 'Bearer dotenv-admin-token' },
      });
      expect(organization.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('takes VAULT_DEV_ROOT_TOKEN_ID as the secrets root token', async () => {
    const server = await startProcess({ cwd: dir, env: { ...base, VAULT_DEV_ROOT_TOKEN_ID: 'dev-root-from-vault-habit' } });
    try {
      expect(server.banner.exports.VAULT_TOKEN).toBe('dev-root-from-vault-habit');
      const lookup = await fetch(`${server.banner.exports.VAULT_ADDR}/v1/auth/token/lookup-self`, {
        headers: { 'X-Vault-Token': 'dev-root-from-vault-habit' },
      });
      expect(lookup.status).toBe(200);
    } finally {
      await server.stop();
    }
  });

  it('prefers UNDERSTUDY_ROOT_TOKEN over its alias, and .env under both', () => {
    const dotenv = join(dir, 'alias.env');
    writeFileSync(dotenv, 'VAULT_DEV_ROOT_TOKEN_ID=from-file\n');
    expect(loadConfig(readEnvironment({}, dotenv)).rootToken).toBe('from-file');
    expect(loadConfig(readEnvironment({ VAULT_DEV_ROOT_TOKEN_ID: 'from-env' }, dotenv)).rootToken).toBe('from-env');
    expect(loadConfig(readEnvironment({ UNDERSTUDY_ROOT_TOKEN: 'primary', VAULT_DEV_ROOT_TOKEN_ID: 'alias' }, dotenv)).rootToken).toBe(
      'primary',
    );
  });

  it('gives every variable its documented default when nothing is set', () => {
    const config = loadConfig({});
    for (const variable of VARIABLES) {
      const value = config[variable.key];
      // The documented seed default is the shipped file, found from the package, not the working directory.
      const expected = variable.key === 'seed' ? SHIPPED_SEED : variable.default;
      expect(value === null ? null : String(value), variable.name).toBe(expected);
    }
    expect(SHIPPED_SEED.endsWith(VARIABLES.find((variable) => variable.key === 'seed')?.default ?? '?')).toBe(true);
  });
});
