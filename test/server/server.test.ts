import { createHash } from 'node:crypto';
import type { IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { requestLogSerializer } from '../../src/logging.js';
import { LIST_MARKER_HEADER } from '../../src/server/list-method.js';
import { createServerWithListMethod } from '../../src/server/server.js';
import { readResponses } from '../secrets/http/support.js';

// The connection wrapper on a bare Node server (no Fastify): streaming in both directions with
// back-pressure, half-closed connections, and the keep-alive timeout, over real sockets.

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve) ?? resolve(undefined));
  server = undefined;
});

async function listen(handler: RequestListener, options: Record<string, unknown> = {}): Promise<number> {
  server = createServerWithListMethod(handler, options);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as { port: number }).port;
}

async function open(port: number): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port, noDelay: true });
  await new Promise((resolve) => socket.once('connect', resolve));
  return socket;
}

/** Answers with the method, the marker, and the length and SHA-256 of the body it read. */
const echo: RequestListener = (request: IncomingMessage, response: ServerResponse) => {
  const hash = createHash('sha256');
  let length = 0;
  request.on('data', (chunk: Buffer) => {
    hash.update(chunk);
    length += chunk.length;
  });
  request.on('end', () => {
    const body = JSON.stringify({
      method: request.method,
      list: request.headers[LIST_MARKER_HEADER] ?? null,
      length,
      sha256: hash.digest('hex'),
    });
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
  });
};

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('createServerWithListMethod', () => {
  it('streams a large request body through (Content-Length and chunked), then a LIST', async () => {
    const port = await listen(echo);
    const socket = await open(port);
    const body = Buffer.alloc(8 * 1024 * 1024);
    for (let i = 0; i < body.length; i += 4096) body.write(`LIST / HTTP/1.1\r\n\r\n${i}`, i, 'latin1');
    const reading = readResponses(socket, 3);
    socket.write(`POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`);
    socket.write(body);
    socket.write('POST /b HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    for (let offset = 0; offset < body.length; offset += 1_000_003) {
      const piece = body.subarray(offset, offset + 1_000_003);
      socket.write(`${piece.length.toString(16)}\r\n`);
      socket.write(piece);
      socket.write('\r\n');
    }
    socket.write('0\r\n\r\nLIST /c HTTP/1.1\r\nHost: x\r\n\r\n');
    const responses = (await reading).map((response) => JSON.parse(response.body) as Record<string, unknown>);
    const expected = { method: 'POST', list: null, length: body.length, sha256: sha256(body) };
    expect(responses).toEqual([expected, expected, { method: 'GET', list: '1', length: 0, sha256: sha256(Buffer.alloc(0)) }]);
    socket.destroy();
  });

  it('sends a large response in full to a client that reads slowly (back-pressure)', async () => {
    const payload = Buffer.alloc(16 * 1024 * 1024, 'z');
    let written: (unsent: number) => void = () => {};
    const answered = new Promise<number>((resolve) => (written = resolve));
    const port = await listen((_request, response) => {
      response.writeHead(200, { 'content-length': payload.length });
      response.end(payload);
      // What the kernel could not take at once stays in libuv's write queue until the client reads.
      // `writeQueueSize` is the handle's count of those bytes (not public API; `writableLength` also
      // counts bytes the kernel took, until their callback, so it cannot tell the two apart).
      const handle = (response.socket as unknown as { _handle?: { writeQueueSize?: number } } | null)?._handle;
      written(handle?.writeQueueSize ?? 0);
    });
    const socket = await open(port);
    socket.pause();
    socket.write('LIST /big HTTP/1.1\r\nHost: x\r\n\r\n');
    // The server has answered and holds bytes it must wait to send (its handler says so, not a pause).
    expect(await answered).toBeGreaterThan(0);
    let received = 0;
    const headEnd = new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= payload.length) resolve();
      });
    });
    socket.resume();
    await headEnd;
    expect(received).toBeGreaterThan(payload.length);
    socket.destroy();
  });

  it('answers a LIST whose client half-closed the connection, then closes it', async () => {
    const port = await listen(echo);
    const socket = await open(port);
    const reading = readResponses(socket, 1);
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.end('LIST /half HTTP/1.1\r\nHost: x\r\n\r\n');
    const [response] = await reading;
    expect(JSON.parse(response!.body)).toMatchObject({ method: 'GET', list: '1' });
    await closed;
  });

  it('closes an idle keep-alive connection after the keep-alive timeout (timeouts reach the socket)', async () => {
    const port = await listen(echo, { keepAliveTimeout: 100 });
    expect(server!.keepAliveTimeout).toBe(100);
    // The server's side of the connection: its own 'timeout' event says why it closed, and its
    // timeout then is the one that fired.
    const timedOut = new Promise<number>((resolve) =>
      server!.once('connection', (serverSide: Socket) => serverSide.once('timeout', () => resolve(serverSide.timeout ?? 0))),
    );
    const socket = await open(port);
    const reading = readResponses(socket, 1);
    const closed = new Promise((resolve) => socket.once('close', resolve));
    socket.write('LIST /idle HTTP/1.1\r\nHost: x\r\n\r\n');
    await reading;
    // The configured 100 ms (Node adds a margin of its own, one second in Node 20), not Node's
    // 5 s default: the setting reached the socket.
    const fired = await timedOut;
    expect(fired).toBeGreaterThanOrEqual(100);
    expect(fired).toBeLessThan(5_000);
    await closed;
  });

  it('answers what Node refuses with its own status: an oversized header block is 431', async () => {
    const port = await listen(echo);
    const socket = await open(port);
    const reading = readResponses(socket, 1);
    socket.write(`LIST /big HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(100 * 1024)}\r\n\r\n`);
    expect((await reading)[0]!.status).toBe(431);
    socket.destroy();
  });

  it('logs a LIST as LIST with the request log serializer (Fastify on this server)', async () => {
    const lines: Record<string, unknown>[] = [];
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const fastify = Fastify({
      serverFactory: createServerWithListMethod,
      logger: { level: 'info', stream, serializers: { req: requestLogSerializer } },
    });
    fastify.get('/v1/*', async (request) => ({ list: request.headers[LIST_MARKER_HEADER] ?? null, ip: request.ip }));
    await fastify.listen({ host: '127.0.0.1', port: 0 });
    try {
      const socket = await open((fastify.server.address() as { port: number }).port);
      const reading = readResponses(socket, 2);
      socket.write('LIST /v1/a HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/b HTTP/1.1\r\nHost: x\r\n\r\n');
      const responses = await reading;
      const clientPort = socket.localPort;
      socket.destroy();
      expect(responses.map((response) => JSON.parse(response.body))).toEqual([
        { list: '1', ip: '127.0.0.1' },
        { list: null, ip: '127.0.0.1' },
      ]);
      const incoming = lines.filter((line) => line.msg === 'incoming request').map((line) => line.req);
      expect(incoming).toEqual([
        expect.objectContaining({ method: 'LIST', url: '/v1/a', remoteAddress: '127.0.0.1', remotePort: clientPort }),
        expect.objectContaining({ method: 'GET', url: '/v1/b' }),
      ]);
    } finally {
      await fastify.close();
    }
  });
});
