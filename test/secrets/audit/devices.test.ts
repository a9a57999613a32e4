import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { control, startServer, testConfig, type TestServer } from '../../helpers/app.js';
import { createToken, putPolicy, v1, type Reply } from '../core/client.js';
import { auditDir, expectedHmac, records, saltOf } from './support.js';

const enableBody = (options: Record<string, string>, type = 'file') => ({ body: { type, options } });

describe('audit devices: enabling, refusing, failing', () => {
  let server: TestServer;
  const dir = auditDir();
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  const refused = (reply: Reply, message: string) => expect(reply).toMatchObject({ status: 400, body: { errors: [message] } });

  it('refuses bad settings with the real texts and stores nothing', async () => {
    refused(await v1(server, 'PUT', 'sys/audit/a', enableBody({})), 'file_path is required');
    refused(await v1(server, 'PUT', 'sys/audit/a', enableBody({ file_path: 'stdout' }, 'syslog')), 'unknown backend type: "syslog"');
    refused(await v1(server, 'PUT', 'sys/audit/a', enableBody({ file_path: 'discard', format: 'xml' })), 'unknown format type "xml"');
    refused(
      await v1(server, 'PUT', 'sys/audit/a', enableBody({ file_path: 'discard', log_raw: 'maybe' })),
      'strconv.ParseBool: parsing "maybe": invalid syntax',
    );
    const missingDir = join(dir, 'no-such-dir', 'audit.log');
    refused(
      await v1(server, 'PUT', 'sys/audit/a', enableBody({ file_path: missingDir })),
      `sanity check failed; unable to open "${missingDir}" for writing: open ${missingDir}: no such file or directory`,
    );
    expect((await v1(server, 'GET', 'sys/audit')).body.data).toEqual({});
  });

  it('refuses a path in use (or nested with one) and needs sudo', async () => {
    expect((await v1(server, 'PUT', 'sys/audit/sink', enableBody({ file_path: 'discard' }))).status).toBe(204);
    refused(await v1(server, 'PUT', 'sys/audit/sink', enableBody({ file_path: 'discard' })), 'path already in use');
    refused(await v1(server, 'PUT', 'sys/audit/sink/inner', enableBody({ file_path: 'discard' })), 'path already in use');
    await putPolicy(server, 'audit-no-sudo', 'path "sys/audit*" { capabilities = ["create", "read", "update", "delete"] }');
    const { client_token: token } = await createToken(server, { policies: ['audit-no-sudo'] });
    expect((await v1(server, 'GET', 'sys/audit', { token })).status).toBe(403);
    expect((await v1(server, 'DELETE', 'sys/audit/sink', { token })).status).toBe(403);
    refused(await v1(server, 'POST', 'sys/audit-hash/sink', { body: { input: '' } }), 'the "input" parameter is empty');
    refused(await v1(server, 'POST', 'sys/audit-hash/none', { body: { input: 'x' } }), 'unknown audit backend none/');
    expect((await v1(server, 'DELETE', 'sys/audit/sink')).status).toBe(204);
  });

  it('keeps answering when a device cannot write, and logs that once', async () => {
    if (!existsSync('/dev/full')) {
      if (process.env.CI) throw new Error('/dev/full is needed to make a device fail its writes');
      console.warn('skipped: /dev/full is missing, so no device can be made to fail its writes');
      return;
    }
    const lines: string[] = [];
    const app = await buildApp(testConfig({ UNDERSTUDY_LOG_LEVEL: 'info' }), { logTo: { write: (line: string) => lines.push(line) } });
    await app.fastify.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.fastify.server.address() as { port: number };
    const local: TestServer = { app, config: testConfig(), baseUrl: `http://127.0.0.1:${port}`, close: () => app.fastify.close() };
    try {
      // Every write to /dev/full fails with "no space left on device".
      expect((await v1(local, 'PUT', 'sys/audit/full', enableBody({ file_path: '/dev/full' }))).status).toBe(204);
      for (let i = 0; i < 3; i++) {
        const written = await v1(local, 'POST', 'secret/data/still-works', { body: { data: { n: i } } });
        expect(written.status).toBe(200);
      }
      expect((await v1(local, 'GET', 'secret/data/still-works')).body.data.data).toEqual({ n: 2 });
      const failures = lines.filter((line) => line.includes('audit device cannot write'));
      expect(failures).toHaveLength(1);
      expect(failures[0]).toContain('ENOSPC');
    } finally {
      await local.close();
    }
  });

  it('follows the store through a reset and a snapshot restore at once', async () => {
    const local = await startServer();
    const file = join(dir, 'replaced.log');
    const pathsLogged = () => records(file).map((record) => record.request.path as string);
    try {
      expect((await control(local, 'POST', '/snapshots', { name: 'no-device' })).status).toBe(201);
      expect((await v1(local, 'PUT', 'sys/audit/file', enableBody({ file_path: file }))).status).toBe(204);
      expect((await control(local, 'POST', '/snapshots', { name: 'with-device' })).status).toBe(201);
      await v1(local, 'GET', 'sys/mounts');
      expect(pathsLogged()).toEqual(['sys/mounts', 'sys/mounts']);

      // The reset's world has no device: the very next request is not recorded.
      expect((await control(local, 'POST', '/reset')).status).toBeLessThan(300);
      await v1(local, 'GET', 'sys/policy');
      expect(pathsLogged()).toEqual(['sys/mounts', 'sys/mounts']);

      // Restoring a world with the device brings it back, with its salt; one without removes it again.
      expect((await control(local, 'POST', '/snapshots/with-device/restore')).status).toBe(200);
      await v1(local, 'GET', 'sys/auth');
      expect(pathsLogged()).toEqual(['sys/mounts', 'sys/mounts', 'sys/auth', 'sys/auth']);
      expect((await control(local, 'POST', '/snapshots/no-device/restore')).status).toBe(200);
      await v1(local, 'GET', 'sys/policy');
      expect(pathsLogged()).toHaveLength(4);
    } finally {
      await local.close();
    }
  });

  it('keeps its devices across a restart', async () => {
    const store = join(dir, 'store.db');
    const file = join(dir, 'restart.log');
    const first = await startServer({ UNDERSTUDY_STORE: store });
    expect((await v1(first, 'PUT', 'sys/audit/file', enableBody({ file_path: file }))).status).toBe(204);
    // The hash a device with this salt must answer, computed here, not taken from the server.
    const hash = expectedHmac(saltOf(first, 'file'), 'same');
    expect((await v1(first, 'POST', 'sys/audit-hash/file', { body: { input: 'same' } })).body.data.hash).toBe(hash);
    await first.close();

    const second = await startServer({ UNDERSTUDY_STORE: store });
    try {
      expect(Object.keys((await v1(second, 'GET', 'sys/audit')).body.data)).toEqual(['file/']);
      // The salt was stored too: the same input hashes the same.
      expect((await v1(second, 'POST', 'sys/audit-hash/file', { body: { input: 'same' } })).body.data.hash).toBe(hash);
      await v1(second, 'GET', 'sys/mounts');
      expect(
        records(file)
          .filter((record) => record.request.path === 'sys/mounts')
          .map((record) => record.type),
      ).toEqual(['request', 'response']);
    } finally {
      await second.close();
    }
  });
});
