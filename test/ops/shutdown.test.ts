import { connect, type Socket } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { watchJournal } from '../helpers/events.js';
import { myQuery, reachable } from '../secrets/database/peers.js';
import { startProcess, type Running } from './process.js';

// SIGTERM must end the process within 5 s whatever is open: idle keep-alive connections, a
// client that sent half a request, one that half-closed its side, an upload stopped mid-body, a
// connection left over from a rejected upload, the PKI key pool's workers and a MySQL pool.
// The deadline is the process's own: its watchdog exits 1, saying so, when closing takes longer.
// Exit 0 without that line is a close that finished in time; this test times nothing itself.

const mysqlUp = await reachable('MariaDB', () => myQuery({}, 'SELECT 1'));

let running: Running | undefined;
const sockets: Socket[] = [];
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await running?.stop('SIGKILL');
});

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const { exports } = running!.banner;
  const response = await fetch(`${exports.VAULT_ADDR}${path}`, {
    method,
    headers: { 'x-vault-token': exports.VAULT_TOKEN as string, authorization: `Bearer ${exports.TFE_TOKEN}`, ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, text: await response.text() };
}

async function rawSocket(): Promise<Socket> {
  const url = new URL(running!.banner.exports.VAULT_ADDR as string);
  const socket = connect({ host: url.hostname, port: Number(url.port), noDelay: true });
  socket.on('error', () => undefined);
  sockets.push(socket);
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

/** Resolves with the first bytes the server sends on `socket`. */
const firstBytes = (socket: Socket) => new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString())));

describe('shutdown', () => {
  it('exits 0 on SIGTERM, closed before its shutdown deadline, with connections in every state, workers and pools open', async () => {
    running = await startProcess({ env: { UNDERSTUDY_PORT: '0', UNDERSTUDY_STORE: ':memory:', UNDERSTUDY_LOG_LEVEL: 'info' } });

    // The PKI key pool's workers.
    expect((await call('POST', '/v1/sys/mounts/stop-pki', { type: 'pki' })).status).toBe(204);
    const root = await call('POST', '/v1/stop-pki/root/generate/internal', { common_name: 'Shutdown Root', key_type: 'ec', ttl: '8760h' });
    expect(root.status, root.text).toBe(200);
    expect((await call('POST', '/v1/stop-pki/roles/web', { allow_any_name: true, key_type: 'rsa', key_bits: 2048 })).status).toBe(204);
    const issued = await call('POST', '/v1/stop-pki/issue/web', { common_name: 'a.example.com', ttl: '1h' });
    expect(issued.status, issued.text).toBe(200);

    // A MySQL connection pool, when a server is there to hold one.
    if (mysqlUp) {
      expect((await call('POST', '/v1/sys/mounts/stop-db', { type: 'database' })).status).toBe(204);
      const configured = await call('POST', '/v1/stop-db/config/my', {
        plugin_name: 'mysql-database-plugin',
        connection_url: '{{username}}:{{password}}@tcp(127.0.0.1:3306)/',
        username: 'root',
        password: '',
        allowed_roles: ['*'],
      });
      expect(configured.status, configured.text).toBeLessThan(300);
    }

    // A registry version to upload to.
    const module = await call(
      'POST',
      '/api/v2/organizations/understudy/registry-modules',
      { data: { type: 'registry-modules', attributes: { name: 'stop', provider: 'aws' } } },
      { 'content-type': 'application/vnd.api+json' },
    );
    expect(module.status).toBe(201);
    const version = await call(
      'POST',
      '/api/v2/organizations/understudy/registry-modules/private/understudy/stop/aws/versions',
      { data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } } },
      { 'content-type': 'application/vnd.api+json' },
    );
    expect(version.status).toBe(201);
    const upload = new URL((JSON.parse(version.text) as { data: { links: { upload: string } } }).data.links.upload).pathname;

    // Idle keep-alive, after a complete request.
    const idle = await rawSocket();
    const answered = firstBytes(idle);
    idle.write('GET /_emulator/health HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(await answered).toMatch(/^HTTP\/1\.1 200/);
    // Half a request head.
    (await rawSocket()).write('GET /v1/sys/health HTTP/1.1\r\nHost: x\r\n');
    // Half a request head, then the client's side closed.
    (await rawSocket()).end('POST /v1/secret/data/x HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{"a"');
    // Two uploads the server answers before their bodies end (neither starts as a gzip stream);
    // the journal says when it has (its own event), so the stop below finds them in that state.
    const journal = await watchJournal(running.banner.exports.VAULT_ADDR as string, { method: 'PUT', prefix: '/api/registry/uploads/' });
    // An upload stopped mid-body.
    const stalled = await rawSocket();
    stalled.write(`PUT ${upload} HTTP/1.1\r\nHost: x\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n`);
    stalled.write(Buffer.alloc(64 * 1024, 0x1f));
    // A rejected upload whose client keeps its connection open and never reads.
    const rejected = await rawSocket();
    rejected.write(`PUT ${upload} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: ${1024 * 1024}\r\n\r\n`);
    rejected.write(Buffer.alloc(1024 * 1024, 'x'));
    rejected.pause();
    expect([(await journal.next()).status, (await journal.next()).status]).toEqual([422, 422]);
    journal.close();

    const exit = await running.stop('SIGTERM');
    running = undefined;
    expect(exit.stderr).toContain('shutting down');
    expect(exit.stderr).not.toContain('did not');
    expect(exit).toMatchObject({ code: 0, signal: null });
  });
});
