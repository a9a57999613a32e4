import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHIPPED_SEED } from '../../../src/config.js';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { writeSeed } from '../identity/helpers.js';
import { patchSettings } from './helpers.js';

const shipped = () => JSON.parse(readFileSync(SHIPPED_SEED, 'utf8')) as Record<string, unknown>;

describe('administrator settings from the seed', () => {
  let server: TestServer;
  beforeAll(async () => {
    const seed = {
      ...shipped(),
      'admin-settings': {
        general: { 'api-rate-limiting-enabled': false, 'default-remote-state-access': false },
        twilio: { 'account-sid': 'ACseed', 'auth-token': 'seed-token', 'from-number': '+15550000000' },
        customization: { footer: 'seeded footer' },
      },
    };
    server = await startServer({ UNDERSTUDY_SEED: writeSeed(seed) });
  });
  afterAll(() => server.close());

  it('starts with the seeded values and returns to them on reset', async () => {
    expect((await platform(server, 'GET', '/admin/general-settings')).body.data.attributes).toMatchObject({
      'api-rate-limiting-enabled': false,
      'default-remote-state-access': false,
      'api-rate-limit': 30,
    });
    expect((await platform(server, 'GET', '/admin/sms-settings')).body.data.attributes).toMatchObject({ 'account-sid': 'ACseed' });
    await patchSettings(server, 'customization-settings', { footer: 'changed' });
    await patchSettings(server, 'general-settings', { 'default-remote-state-access': true });
    await fetch(`${server.baseUrl}/_emulator/reset`, { method: 'POST' });
    expect((await platform(server, 'GET', '/admin/customization-settings')).body.data.attributes.footer).toBe('seeded footer');
    expect((await platform(server, 'GET', '/admin/general-settings')).body.data.attributes['default-remote-state-access']).toBe(false);
  });

  it('refuses a seed whose settings break a rule, naming the document', async () => {
    const bad = writeSeed({ ...shipped(), 'admin-settings': { general: { 'api-rate-limit': 5 } } });
    await expect(startServer({ UNDERSTUDY_SEED: bad })).rejects.toThrow(/admin-settings\/general: api-rate-limit must be at least 30/);
    const unknown = writeSeed({ ...shipped(), 'admin-settings': { mystery: {} } });
    await expect(startServer({ UNDERSTUDY_SEED: unknown })).rejects.toThrow(/unknown settings "mystery"/);
  });
});

describe('administrator settings in a file store', () => {
  it('survive a restart, a PATCH made since the seed winning over it', async () => {
    const store = join(mkdtempSync(join(tmpdir(), 'understudy-admin-store-')), 'store.sqlite');
    const seed = writeSeed({ ...shipped(), 'admin-settings': { customization: { footer: 'seeded' } } });
    const first = await startServer({ UNDERSTUDY_STORE: store, UNDERSTUDY_SEED: seed });
    await patchSettings(first, 'customization-settings', { footer: 'patched' });
    await first.close();
    const second = await startServer({ UNDERSTUDY_STORE: store, UNDERSTUDY_SEED: seed });
    try {
      expect((await platform(second, 'GET', '/admin/customization-settings')).body.data.attributes.footer).toBe('patched');
    } finally {
      await second.close();
    }
  });
});
