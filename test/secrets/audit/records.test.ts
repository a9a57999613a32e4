import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';
import { createToken, v1 } from '../core/client.js';
import { auditDir, expectedHmac, records, saltOf } from './support.js';

/** What a `file` audit device writes: one request and one response record per request, values HMAC'd. */
describe('audit file device records', () => {
  let server: TestServer;
  const dir = auditDir();
  const file = join(dir, 'audit.log');
  const enable = (path: string, options: Record<string, string>) =>
    v1(server, 'PUT', `sys/audit/${path}`, { body: { type: 'file', description: 'test device', options } });
  /** The value the device at `path` should write for `input`, computed by the test (see `expectedHmac`). */
  const hashOf = (path: string, input: string) => expectedHmac(saltOf(server, path), input);

  beforeAll(async () => {
    server = await startServer();
    expect((await enable('file', { file_path: file })).status).toBe(204);
  });
  afterAll(() => server.close());

  it('lists the device with its options, also at the top level', async () => {
    const listed = await v1(server, 'GET', 'sys/audit');
    const entry = { path: 'file/', type: 'file', description: 'test device', options: { file_path: file }, local: false };
    expect(listed.status).toBe(200);
    expect(listed.body.data['file/']).toEqual(entry);
    expect(listed.body['file/']).toEqual(entry);
  });

  it("sys/audit-hash answers the HMAC-SHA256 of the input under the device's salt, as the test computes it", async () => {
    const salt = saltOf(server, 'file');
    expect(salt).not.toBe('');
    for (const input of ['hunter2-secret', ROOT_TOKEN, 'ünïcode ✓']) {
      const answered = await v1(server, 'POST', 'sys/audit-hash/file', { body: { input } });
      expect(answered.status).toBe(200);
      expect(answered.body.data.hash).toBe(expectedHmac(salt, input));
    }
  });

  it('writes a request and a response record for a KV write and read, hashing every value and no key', async () => {
    const before = records(file).length;
    expect((await v1(server, 'POST', 'secret/data/app', { body: { data: { password: 'hunter2-secret' } } })).status).toBe(200);
    const read = await v1(server, 'GET', 'secret/data/app');
    expect(read.body.data.data).toEqual({ password: 'hunter2-secret' });

    const written = records(file).slice(before);
    expect(written.map((record) => record.type)).toEqual(['request', 'response', 'request', 'response']);
    const [request, response, readRequest, readResponse] = written;
    expect(request.request).toMatchObject({
      operation: 'create',
      mount_point: 'secret/',
      mount_type: 'kv',
      mount_class: 'secret',
      namespace: { id: 'root' },
      path: 'secret/data/app',
      remote_address: '127.0.0.1',
    });
    expect(request.request.data.data.password).toBe(hashOf('file', 'hunter2-secret'));
    expect(request.request.id).toBe(response.request.id);
    expect(request.auth).toMatchObject({ display_name: 'root', policies: ['root'], token_type: 'service' });
    expect(request.auth.client_token).toBe(hashOf('file', ROOT_TOKEN));
    expect(request.request.client_token).toBe(request.auth.client_token);
    const rootAccessor = (await v1(server, 'GET', 'auth/token/lookup-self')).body.data.accessor as string;
    expect(request.auth.accessor).toBe(hashOf('file', rootAccessor));
    expect(new Date(request.time).toString()).not.toBe('Invalid Date');

    expect(readRequest.request.operation).toBe('read');
    expect(readResponse.response.data.data.password).toBe(hashOf('file', 'hunter2-secret'));
    expect(readResponse.response.data.metadata.version).toBe(1);
    expect(readResponse.response.data.metadata.created_time).toBe(hashOf('file', read.body.data.metadata.created_time));

    // Neither the token nor the secret appears anywhere in clear.
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(ROOT_TOKEN);
    expect(text).not.toContain('hunter2-secret');
  });

  it('hashes a token a response hands out, and records the error of a refused request', async () => {
    const before = records(file).length;
    const issued = await createToken(server, { policies: ['default'] });
    const refused = await v1(server, 'GET', 'secret/data/app', { token: issued.client_token });
    expect(refused.status).toBe(403);

    const written = records(file).slice(before);
    const created = written.find((record) => record.type === 'response' && record.request.path === 'auth/token/create');
    expect(created.response.auth.client_token).toBe(hashOf('file', issued.client_token));
    expect(created.response.auth.accessor).toBe(hashOf('file', issued.accessor));
    const denied = written.filter((record) => record.request.path === 'secret/data/app');
    expect(denied.map((record) => record.type)).toEqual(['request', 'response']);
    expect(denied[1].error).toBe('1 error occurred:\n\t* permission denied\n\n');
    expect(denied[1].auth.client_token).toBe(hashOf('file', issued.client_token));
    expect(readFileSync(file, 'utf8')).not.toContain(issued.client_token);
  });

  it("writes raw data with log_raw (tokens still HMAC'd), clear accessors without hmac_accessor, and a prefix", async () => {
    const raw = join(dir, 'raw.log');
    expect((await enable('raw', { file_path: raw, log_raw: 'true', hmac_accessor: 'false', prefix: 'AUDIT> ' })).status).toBe(204);
    const lookup = await v1(server, 'GET', 'auth/token/lookup-self');
    await v1(server, 'POST', 'cubbyhole/note', { body: { text: 'plain words' } });

    const written = records(raw, 'AUDIT> ');
    const note = written.find((record) => record.type === 'request' && record.request.path === 'cubbyhole/note');
    expect(note.request.data).toEqual({ text: 'plain words' });
    expect(note.auth.accessor).toBe(lookup.body.data.accessor);
    expect(note.auth.client_token).toBe(hashOf('raw', ROOT_TOKEN));
    expect(readFileSync(raw, 'utf8')).not.toContain(ROOT_TOKEN);
    // The first device kept hashing the same value.
    expect(readFileSync(file, 'utf8')).not.toContain('plain words');
    expect(hashOf('raw', 'x')).not.toBe(hashOf('file', 'x'));
  });

  it('stops writing once disabled, after the record of the disable itself; disabling again is a 204', async () => {
    expect((await v1(server, 'DELETE', 'sys/audit/raw')).status).toBe(204);
    const raw = join(dir, 'raw.log');
    // The disable's request record, held for its response record, is in the file; its response
    // record is not (the device is gone by then), while the device that stays has both.
    const last = records(raw, 'AUDIT> ').at(-1);
    expect(last).toMatchObject({ type: 'request', request: { operation: 'delete', path: 'sys/audit/raw' } });
    const kept = records(file).filter((record) => record.request.id === last.request.id);
    expect(kept.map((record) => record.type)).toEqual(['request', 'response']);
    const count = records(raw, 'AUDIT> ').length;
    await v1(server, 'GET', 'sys/mounts');
    expect(records(raw, 'AUDIT> ')).toHaveLength(count);
    expect((await v1(server, 'DELETE', 'sys/audit/raw')).status).toBe(204);
    expect((await v1(server, 'GET', 'sys/audit')).body.data).not.toHaveProperty('raw/');
  });
});
