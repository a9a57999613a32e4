import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, SHIPPED_SEED, VARIABLES } from '../../src/config.js';

describe('configuration', () => {
  it('has the contract defaults', () => {
    expect(loadConfig({})).toEqual({
      host: '127.0.0.1',
      port: 8200,
      store: 'data/understudy.sqlite',
      logLevel: 'info',
      dialect: 'spec',
      seed: SHIPPED_SEED,
      adminToken: 'understudy-admin-token',
      rootToken: 'root',
      controlToken: null,
    });
  });

  it('finds the shipped seed from any working directory, and a given seed from the working directory', () => {
    expect(SHIPPED_SEED).toBe(join(process.cwd(), 'fixtures', 'default.json'));
    expect(existsSync(SHIPPED_SEED)).toBe(true);
    expect(loadConfig({ UNDERSTUDY_SEED: 'my/seed.json' }).seed).toBe('my/seed.json');
  });

  it('reads the root token alias, the named variable winning', () => {
    expect(loadConfig({ VAULT_DEV_ROOT_TOKEN_ID: 'alias' }).rootToken).toBe('alias');
    expect(loadConfig({ VAULT_DEV_ROOT_TOKEN_ID: 'alias', UNDERSTUDY_ROOT_TOKEN: 'named' }).rootToken).toBe('named');
  });

  it.each([
    ['UNDERSTUDY_PORT', 'abc'],
    ['UNDERSTUDY_PORT', '70000'],
    ['UNDERSTUDY_DIALECT', 'nope'],
    ['UNDERSTUDY_LOG_LEVEL', 'loud'],
    ['UNDERSTUDY_ADMIN_TOKEN', 'short'],
  ])('refuses %s=%s with one message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name} must be .*\\(got "${value}"\\)$`));
  });

  it('uses the UNDERSTUDY_ prefix for every variable it owns', () => {
    for (const variable of VARIABLES) expect(variable.name).toMatch(/^UNDERSTUDY_[A-Z_]+$/);
  });
});
