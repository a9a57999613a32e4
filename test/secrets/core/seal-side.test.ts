import vault from 'node-vault';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { hvacInterpreter, missingHvacReason, runPython } from '../../helpers/python.js';
import { v1 } from './client.js';

/** The seal-side `sys/` paths clients call on an initialised, unsealed server: init, keyring, rekey backup, root generation. */
describe('sys/init, the keyring, the rekey backup and root generation', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('refuses PUT sys/init without a token, as the real server does once initialised (node-vault init)', async () => {
    const raw = await v1(server, 'PUT', 'sys/init', { token: null, body: { secret_shares: 1, secret_threshold: 1 } });
    expect(raw.status).toBe(400);
    expect(raw.body).toEqual({ errors: ['Vault is already initialized'] });
    const client = vault({ endpoint: server.baseUrl });
    await expect(client.init({ secret_shares: 1, secret_threshold: 1 })).rejects.toMatchObject({
      message: 'Vault is already initialized',
      response: { statusCode: 400 },
    });
    expect(await client.initialized()).toEqual({ initialized: true });
  });

  it('reports the keyring term, moves it on at sys/rotate (sudo), with the install time from the clock', async () => {
    const before = await v1(server, 'GET', 'sys/key-status');
    expect(before.status).toBe(200);
    expect(before.body.data).toEqual({ term: 1, install_time: expect.any(String), encryptions: 0 });
    // The real server copies key-status's data to the top level too.
    expect(before.body.term).toBe(1);
    await control(server, 'POST', '/clock', { advance: '1h' });
    const rotated = await v1(server, 'PUT', 'sys/rotate');
    expect(rotated.status).toBe(204);
    const after = (await v1(server, 'GET', 'sys/key-status')).body.data;
    expect(after.term).toBe(2);
    expect(Date.parse(after.install_time) - Date.parse(before.body.data.install_time)).toBeGreaterThanOrEqual(3_600_000);

    await v1(server, 'POST', 'sys/policy/plain', { body: { policy: 'path "sys/*" { capabilities = ["update", "read"] }' } });
    const token = (await v1(server, 'POST', 'auth/token/create', { body: { policies: ['plain'] } })).body.auth.client_token as string;
    expect((await v1(server, 'PUT', 'sys/rotate', { token })).status).toBe(403);
    expect((await v1(server, 'GET', 'sys/key-status')).body.data.term).toBe(2);
  });

  it('has no rekey backup', async () => {
    const backup = await v1(server, 'GET', 'sys/rekey/backup');
    expect(backup.status).toBe(400);
    expect(backup.body).toEqual({ errors: ['no backed-up keys found'] });
    expect((await v1(server, 'DELETE', 'sys/rekey/backup')).status).toBe(204);
  });

  it('starts, reads and cancels a root generation attempt without a token', async () => {
    const status = async () => v1(server, 'GET', 'sys/generate-root/attempt', { token: null });
    const idle = await status();
    expect(idle.status).toBe(200);
    expect(idle.body).toEqual({
      started: false,
      nonce: '',
      progress: 0,
      required: 1,
      complete: false,
      encoded_token: '',
      encoded_root_token: '',
      pgp_fingerprint: '',
      otp: '',
      otp_length: 28,
    });
    const client = vault({ endpoint: server.baseUrl });
    const started = await client.generateRootInit({});
    expect(started).toMatchObject({ started: true, progress: 0, required: 1, complete: false });
    expect(started.nonce).toMatch(/^[0-9a-f-]{36}$/);
    expect(started.otp).toMatch(/^[0-9A-Za-z]{28}$/);
    const again = await v1(server, 'PUT', 'sys/generate-root/attempt', { token: null, body: {} });
    expect(again.body).toEqual({ errors: ['root generation already in progress'] });
    expect((await status()).body).toMatchObject({ started: true, nonce: started.nonce, otp: '' });
    await client.generateRootCancel();
    expect((await status()).body.started).toBe(false);
    const wrongLength = await v1(server, 'PUT', 'sys/generate-root/attempt', { token: null, body: { otp: 'short' } });
    expect(wrongLength.body).toEqual({ errors: ['OTP string is wrong length'] });
    expect((await status()).body.started).toBe(false);
  });

  it.skipIf(!hvacInterpreter && !process.env.CI)('answers hvac’s sys calls for these paths', async () => {
    if (!hvacInterpreter) throw new Error(`CI is set but ${missingHvacReason}`);
    const script = `
import json, os, hvac
client = hvac.Client(url=os.environ["VAULT_ADDR"], token=os.environ["VAULT_TOKEN"])
status = client.sys.get_encryption_key_status()
client.sys.rotate_encryption_key()
rotated = client.sys.get_encryption_key_status()
try:
    client.sys.read_backup_keys()
    backup = None
except hvac.exceptions.InvalidRequest as error:
    backup = str(error)
started = client.sys.start_root_token_generation()
progress = client.sys.read_root_generation_progress()
client.sys.cancel_root_generation()
print(json.dumps({"term": status["data"]["term"], "rotated": rotated["data"]["term"], "backup": backup,
                  "started": started["started"], "progress": progress["started"],
                  "after": client.sys.read_root_generation_progress()["started"], "initialized": client.sys.is_initialized()}))
`;
    const run = await runPython(hvacInterpreter, script, { VAULT_ADDR: server.baseUrl, VAULT_TOKEN: ROOT_TOKEN });
    expect(run.stderr).toBe('');
    const term = ((await v1(server, 'GET', 'sys/key-status')).body.data.term as number) - 1;
    expect(JSON.parse(run.stdout)).toEqual({
      term,
      rotated: term + 1,
      backup: expect.stringContaining('no backed-up keys found'),
      started: true,
      progress: true,
      after: false,
      initialized: true,
    });
  });
});
