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

/**
 * Not a pacing: only the server's close ends the wait below, and a server that never closes
 * would leave it to the test's timeout; this bound fails first, saying what hung. The server
 * closes at once after its answer (or after its own drain limit, `DRAIN_MS`, well below this).
 */
const HUNG_MS = 20_000;

/** Resolves when the server has closed its side (FIN or reset), its own event. */
function serverCloses(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the server kept the connection open for ${HUNG_MS} ms`)), HUNG_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    socket.once('end', done);
    socket.once('close', done);
  });
}

/** The server's side of the next connection it accepts (the test's own socket, opened next). */
const nextConnection = (test: TestServer) =>
  new Promise<Socket>((resolve) => test.app.fastify.server.once('connection', (socket: Socket) => resolve(socket)));

/** Resolves once the server's side of a connection is gone. */
const gone = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

const MIB = 1024 * 1024;

describe('an answer sent before the request body was read', () => {
  it.each([
    ['Connection: close', 'close'],
    ['keep-alive', 'keep-alive'],
  ])('a rejected 1 MiB upload (%s) gets its 422 and the server closes the connection', async (_name, connection) => {
    server = await startServer();
    const path = await uploadPath(`wedge-${connection}`);
    const serverSide = nextConnection(server);
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
    await serverCloses(socket);
    socket.destroy();
    // The server let go of the connection too (it holds no socket for it).
    await gone(await serverSide);

    // The server still answers on a new connection.
    const again = await fetch(`${server.baseUrl}/_emulator/health`);
    expect(again.status).toBe(200);
  });

  it('closes the connection of a client that stops sending mid-body after the answer', async () => {
    server = await startServer();
    const path = await uploadPath('stalled');
    const serverSide = nextConnection(server);
    const socket = await openSocket(server);
    socket.on('error', () => undefined);
    const reading = readResponses(socket, 1);
    // Declares 10 MiB, sends 64 KiB of garbage, then goes quiet without closing.
    socket.write(`PUT ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${10 * MIB}\r\n\r\n`);
    socket.write(Buffer.alloc(64 * 1024, 'x'));
    const [answer] = await reading;
    expect(answer?.status).toBe(422);
    await serverCloses(socket);
    // Without the client closing its side: the server's own linger ends the connection.
    await gone(await serverSide);
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
