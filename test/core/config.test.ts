import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, kmsLibraryMap, loadConfig, SHIPPED_SEED, VARIABLES } from '../../src/config.js';

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
      edition: 'self-hosted',
      logFormat: 'auto',
      corsOrigins: null,
      smsApiUrl: null,
      mailTimeoutMs: 10000,
      kmsLibraries: 'softhsm=/usr/lib/softhsm/libsofthsm2.so',
      pkiKeyPool: 20,
      publicRegistryUrl: null,
      publicRegistryToken: null,
      journalSize: 10000,
      snapshotDir: null,
      snapshotImportLimitMb: 1024,
      executor: 'auto',
      terraformBin: null,
      tfPluginDir: null,
      tls: 'off',
      tlsCert: null,
      tlsDir: null,
      publicUrl: null,
      tlsHosts: null,
      tlsKey: null,
      runConcurrency: 2,
      runProgression: 'immediate',
      runUser: null,
      runAsRoot: 'false',
      allowInsecureBind: 'false',
      notificationTimeoutMs: 10000,
    });
  });

  it('reads UNDERSTUDY_JOURNAL_SIZE as a count from 0 (off) up', () => {
    expect(loadConfig({ UNDERSTUDY_JOURNAL_SIZE: '0' }).journalSize).toBe(0);
    expect(() => loadConfig({ UNDERSTUDY_JOURNAL_SIZE: '-1' })).toThrow(/UNDERSTUDY_JOURNAL_SIZE must be an integer from 0 to 1000000/);
    expect(() => loadConfig({ UNDERSTUDY_JOURNAL_SIZE: 'lots' })).toThrow(/UNDERSTUDY_JOURNAL_SIZE/);
  });

  it('reads UNDERSTUDY_KMS_LIBRARIES as name=path pairs, and refuses other shapes', () => {
    const config = loadConfig({ UNDERSTUDY_KMS_LIBRARIES: 'softhsm=/usr/lib/softhsm/libsofthsm2.so,vendor=/opt/hsm/lib.so' });
    expect([...kmsLibraryMap(config.kmsLibraries)]).toEqual([
      ['softhsm', '/usr/lib/softhsm/libsofthsm2.so'],
      ['vendor', '/opt/hsm/lib.so'],
    ]);
    expect(() => loadConfig({ UNDERSTUDY_KMS_LIBRARIES: '/usr/lib/softhsm/libsofthsm2.so' })).toThrow(
      /UNDERSTUDY_KMS_LIBRARIES must be name=path pairs/,
    );
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
    ['UNDERSTUDY_PKI_KEY_POOL', '-1'],
    ['UNDERSTUDY_DIALECT', 'nope'],
    ['UNDERSTUDY_EDITION', 'cloud'],
    ['UNDERSTUDY_LOG_LEVEL', 'loud'],
    ['UNDERSTUDY_ADMIN_TOKEN', 'short'],
    ['UNDERSTUDY_SMS_API_URL', 'ftp://sms.test'],
    ['UNDERSTUDY_MAIL_TIMEOUT_MS', '0'],
    ['UNDERSTUDY_MAIL_TIMEOUT_MS', 'soon'],
  ])('refuses %s=%s with one message naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(new RegExp(`^${name} must be .*\\(got "${value}"\\)$`));
  });

  it('uses the UNDERSTUDY_ prefix for every variable it owns', () => {
    for (const variable of VARIABLES) expect(variable.name).toMatch(/^UNDERSTUDY_[A-Z_]+$/);
  });
});
