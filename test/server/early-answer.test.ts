import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../helpers/app.js';
import { ORG } from '../platform/registry/helpers.js';
import { openSocket, readResponses } from '../secrets/http/support.js';

// A route that answers before reading the whole body (a rejected upload) must not leave the
// connection wedged: the answer says `Connection: close`, and the server really closes the
// connection afterwards, however much of the body is still unread, on keep-alive connections too.

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A fresh module version's upload path (`/api/registry/uploads/v1/object/<id>`). */
async function uploadPath(name: string): Promise<string> {
  const created = await platform(server!, 'POST', `/organizations/${ORG}/registry-modules`, {
    body: { data: { type: 'registry-modules', attributes: { name, provider: 'aws' } } },
  });
  expect(created.status).toBe(201);
  const version = await platform(server!, 'POST', `/organizations/${ORG}/registry-modules/private/${ORG}/${name}/aws/versions`, {
    body: { data: { type: 'registry-module-versions', attributes: { version: '1.0.0' } } },
  });
  expect(version.status).toBe(201);
  return new URL(version.body.data.links.upload as string).pathname;
}

/** Resolves when the server has closed its side (FIN or reset); rejects after `ms`. */
function serverCloses(socket: Socket, ms: number): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server kept the connection open for ${ms} ms`)), ms);
    const done = () => {
      clearTimeout(timer);
      resolve(performance.now() - started);
    };
    socket.once('end', done);
    socket.once('close', done);
  });
}

/** The server's open connections (the test's own fetch keeps some alive). */
const openConnections = (test: TestServer) =>
  new Promise<number>((resolve, reject) =>
    test.app.fastify.server.getConnections((error, count) => (error ? reject(error) : resolve(count))),
  );

const MIB = 1024 * 1024;

describe('an answer sent before the request body was read', () => {
  it.each([
    ['Connection: close', 'close'],
    ['keep-alive', 'keep-alive'],
  ])('a rejected 1 MiB upload (%s) gets its 422 and the server closes the connection', async (_name, connection) => {
    server = await startServer();
    const path = await uploadPath(`wedge-${connection}`);
    const before = await openConnections(server);
    const socket = await openSocket(server);
    socket.on('error', () => undefined);
    const reading = readResponses(socket, 1);
    socket.write(`PUT ${path} HTTP/1.1\r\nHost: x\r\nConnection: ${connection}\r\nContent-Length: ${MIB}\r\n\r\n`);
    socket.write(Buffer.alloc(MIB, 'x'));
    // A keep-alive client then pipelines its next request, which must not wait forever.
    if (connection === 'keep-alive') socket.write('GET /_emulator/health HTTP/1.1\r\nHost: x\r\n\r\n');

    const [answer] = await reading;
    expect(answer?.status).toBe(422);
    expect(answer?.body).toContain('not a gzip stream');
    expect(answer?.headers.connection).toBe('close');
    expect(await serverCloses(socket, 4_000)).toBeLessThan(4_000);
    socket.destroy();
    await expect.poll(() => openConnections(server!), { timeout: 4_000 }).toBe(before);

    // The server still answers on a new connection.
    const again = await fetch(`${server.baseUrl}/_emulator/health`);
    expect(again.status).toBe(200);
  });

  it('closes the connection of a client that stops sending mid-body after the answer', async () => {
    server = await startServer();
    const path = await uploadPath('stalled');
    const before = await openConnections(server);
    const socket = await openSocket(server);
    socket.on('error', () => undefined);
    const reading = readResponses(socket, 1);
    // Declares 10 MiB, sends 64 KiB of garbage, then goes quiet without closing.
    socket.write(`PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${10 * MIB}\r\n\r\n`);
    socket.write(Buffer.alloc(64 * 1024, 'x'));
    const [answer] = await reading;
    expect(answer?.status).toBe(422);
    expect(await serverCloses(socket, 5_000)).toBeLessThan(5_000);
    await expect.poll(() => openConnections(server!), { timeout: 4_000 }).toBe(before);
  });

  it('keeps a connection alive when the body was read in full', async () => {
    server = await startServer();
    const path = await uploadPath('complete');
    const socket = await openSocket(server);
    const reading = readResponses(socket, 2);
    const body = Buffer.alloc(1000, 'x');
    socket.write(`PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`);
    socket.write(body);
    socket.write('GET /_emulator/health HTTP/1.1\r\nHost: x\r\n\r\n');
    const answers = await reading;
    expect(answers.map((answer) => answer.status)).toEqual([422, 200]);
    expect(answers[0]?.headers.connection).not.toBe('close');
    socket.destroy();
  });
});
