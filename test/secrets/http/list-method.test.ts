import { execFile } from 'node:child_process';
import { Agent, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, type TestServer } from '../../helpers/app.js';
import { json, openSocket, portOf, readResponses, send, startListServer, writeInPieces } from './support.js';

// The LIST method over real TCP connections: Node's parser refuses it, so these go through the
// connection-level rewrite (src/server/server.ts) on every path a real client can take.

const run = promisify(execFile);
const token = { 'x-vault-token': ROOT_TOKEN };
const ITEMS = ['a', 'b', 'dir/'];

/** A request as raw bytes: a request line, Host, the root token, extra header lines, a body. */
function raw(requestLine: string, extra: string[] = [], body = ''): string {
  const lines = [requestLine, 'Host: 127.0.0.1', `X-Vault-Token: ${ROOT_TOKEN}`, ...extra];
  if (body !== '') lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

const keysOf = (body: string): unknown => (JSON.parse(body) as { data: { keys: unknown } }).data.keys;

describe('the LIST method over TCP', () => {
  let server: TestServer;
  /** Raw TCP connections the server accepted, and the reads it got on each. */
  const accepted: { socket: Socket; reads: number }[] = [];
  /** The server's side of a client socket, once the server has accepted it. */
  const serverSideOf = (client: Socket): Promise<{ socket: Socket; reads: number }> => {
    const mine = (entry: { socket: Socket }) => entry.socket.remotePort === client.localPort;
    const found = accepted.find(mine);
    if (found) return Promise.resolve(found);
    return new Promise((resolve) => {
      const look = () => {
        const entry = accepted.find(mine);
        if (!entry) return;
        server.app.fastify.server.off('connection', look);
        resolve(entry);
      };
      server.app.fastify.server.on('connection', look);
    });
  };

  beforeAll(async () => {
    server = await startListServer();
    server.app.fastify.server.on('connection', (socket: Socket) => {
      const entry = { socket, reads: 0 };
      accepted.push(entry);
      socket.on('data', () => entry.reads++);
    });
    for (const [name, value] of [
      ['a', 1],
      ['b', 2],
      ['dir/c', 3],
    ] as const) {
      const written = await send(server, {
        method: 'POST',
        path: `/v1/things/items/${name}`,
        headers: token,
        body: JSON.stringify({ value }),
      });
      expect(written.status).toBe(204);
    }
  });
  afterAll(() => server.close());

  describe('curl and the list query parameter', () => {
    const curl = async (...args: string[]) => {
      const { stdout } = await run('curl', ['-sS', '-o', '-', '-w', '\n%{http_code}', '-H', `X-Vault-Token: ${ROOT_TOKEN}`, ...args]);
      const newline = stdout.lastIndexOf('\n');
      return { status: Number(stdout.slice(newline + 1)), body: stdout.slice(0, newline) };
    };

    it('curl -X LIST lists the keys', async () => {
      const response = await curl('-X', 'LIST', `${server.baseUrl}/v1/things/items`);
      expect(response.status).toBe(200);
      expect(keysOf(response.body)).toEqual(ITEMS);
      const nested = await curl('-X', 'LIST', `${server.baseUrl}/v1/things/items/dir/`);
      expect(keysOf(nested.body)).toEqual(['c']);
    });

    it('GET ?list= with any true spelling gives the same data as LIST', async () => {
      const listed = await send(server, { method: 'LIST', path: '/v1/things/items/', headers: token });
      expect(listed.status).toBe(200);
      for (const value of ['true', 'True', '1', 't', 'T', 'TRUE']) {
        const response = await send(server, { method: 'GET', path: `/v1/things/items/?list=${value}`, headers: token });
        expect(response.status, value).toBe(200);
        expect(json(response).data).toEqual(json(listed).data);
      }
    });

    it('?list=false is a read, and LIST of the same path is a list', async () => {
      const read = await send(server, { method: 'GET', path: '/v1/things/items/a?list=false', headers: token });
      expect(read.status).toBe(200);
      expect(json(read).data).toEqual({ value: 1 });
      const listed = await send(server, { method: 'LIST', path: '/v1/things/items/a', headers: token });
      expect(listed.status).toBe(404);
      expect(listed.body).toBe('{"errors":[]}\n');
    });

    it('?list=bogus is 400 with no messages', async () => {
      const response = await send(server, { method: 'GET', path: '/v1/things/items/?list=bogus', headers: token });
      expect(response.status).toBe(400);
      expect(response.body).toBe('{"errors":[]}\n');
    });

    it('a marker header sent by a client does not turn a request into a list', async () => {
      const spoof = { ...token, 'x-understudy-list-method': '1' };
      const read = await send(server, { method: 'GET', path: '/v1/things/items/a', headers: spoof });
      expect(json(read).data).toEqual({ value: 1 });
      const write = await send(server, { method: 'POST', path: '/v1/things/items/spoof', headers: spoof, body: '{"x":1}' });
      expect(write.status).toBe(204);
    });

    it('the request keeps the client address (Fastify request.ip reads it through the wrapper)', async () => {
      const seen: { address?: string; port?: number }[] = [];
      const onRequest = (request: IncomingMessage) => seen.push({ address: request.socket.remoteAddress, port: request.socket.remotePort });
      server.app.fastify.server.on('request', onRequest);
      try {
        const response = await send(server, { method: 'LIST', path: '/v1/things/items/', headers: token });
        expect(seen).toEqual([{ address: '127.0.0.1', port: response.localPort }]);
      } finally {
        server.app.fastify.server.off('request', onRequest);
      }
    });
  });

  it('one keep-alive connection carries GET, POST, LIST, LIST with a body, chunked POST, LIST, GET', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const before = accepted.length;
    try {
      const responses = [
        await send(server, { agent, method: 'GET', path: '/v1/things/items/a', headers: token }),
        await send(server, {
          agent,
          method: 'POST',
          path: '/v1/things/items/k1',
          headers: { ...token, 'content-type': 'application/json' },
          body: '{"k":1}',
        }),
        await send(server, { agent, method: 'LIST', path: '/v1/things/items/', headers: token }),
        await send(server, { agent, method: 'LIST', path: '/v1/things/items/dir', headers: token, body: '{"ignored":true}' }),
        await send(server, { agent, method: 'POST', path: '/v1/things/items/k2', headers: token, chunks: ['{"k"', ':', '2}'] }),
        await send(server, { agent, method: 'LIST', path: '/v1/things/items', headers: token }),
        await send(server, { agent, method: 'GET', path: '/v1/things/items/k2', headers: token }),
      ];
      expect(responses.map((response) => response.status)).toEqual([200, 204, 200, 200, 204, 200, 200]);
      expect(json(responses[0]!).data).toEqual({ value: 1 });
      expect(keysOf(responses[2]!.body)).toEqual(expect.arrayContaining([...ITEMS, 'k1']));
      expect(keysOf(responses[3]!.body)).toEqual(['c']);
      expect(keysOf(responses[5]!.body)).toEqual(expect.arrayContaining([...ITEMS, 'k1', 'k2']));
      expect(json(responses[6]!).data).toEqual({ k: 2 });
      expect(new Set(responses.map((response) => response.localPort)).size).toBe(1);
      expect(accepted.length - before).toBe(1);
    } finally {
      agent.destroy();
    }
  });

  it('answers pipelined requests (LIST and a POST with a body among them) in order', async () => {
    const socket = await openSocket(server);
    try {
      const batch = [
        raw('GET /v1/things/items/a HTTP/1.1'),
        raw('LIST /v1/things/items/ HTTP/1.1'),
        raw('POST /v1/things/items/piped HTTP/1.1', ['Content-Type: application/json'], '{"piped":"LIST / HTTP/1.1\\r\\n\\r\\n"}'),
        raw('LIST /v1/things/items/dir HTTP/1.1'),
        raw('GET /v1/things/items/b HTTP/1.1'),
        raw('LIST /v1/things/items/missing/ HTTP/1.1'),
      ].join('');
      const reading = readResponses(socket, 6);
      socket.write(batch);
      const responses = await reading;
      expect(responses.map((response) => response.status)).toEqual([200, 200, 204, 200, 200, 404]);
      expect(JSON.parse(responses[0]!.body).data).toEqual({ value: 1 });
      expect(keysOf(responses[1]!.body)).toEqual(expect.arrayContaining(ITEMS));
      expect(keysOf(responses[3]!.body)).toEqual(['c']);
      expect(JSON.parse(responses[4]!.body).data).toEqual({ value: 2 });

      const after = readResponses(socket, 1);
      socket.write(raw('GET /v1/things/items/piped HTTP/1.1'));
      expect(JSON.parse((await after)[0]!.body).data).toEqual({ piped: 'LIST / HTTP/1.1\r\n\r\n' });
    } finally {
      socket.destroy();
    }
  });

  it('handles a LIST split across TCP writes at awkward points', async () => {
    const socket = await openSocket(server);
    try {
      const chunk = (data: string, extension = '') => `${Buffer.byteLength(data).toString(16)}${extension}\r\n${data}\r\n`;
      const chunkedPost =
        'POST /v1/things/items/split HTTP/1.1\r\nHost: x\r\n' +
        `X-Vault-Token: ${ROOT_TOKEN}\r\nTransfer-Encoding: chunked\r\n\r\n` +
        chunk('{"split":', ';note=first') +
        chunk(`"${'x'.repeat(10)} LIST / HTTP/1.1\\r\\n"`) +
        chunk('}') +
        '0\r\nX-Checksum: none\r\n\r\n';
      const list = raw('LIST /v1/things/items/dir HTTP/1.1');
      const cutInChunkData = chunkedPost.indexOf('LIST /');
      const cutInChunkSize = chunkedPost.indexOf('\r\n', chunkedPost.indexOf('{"split":')) + 3; // inside the second size line
      const cutInTrailer = chunkedPost.indexOf('Checksum');
      const pieces = [
        chunkedPost.slice(0, cutInChunkSize),
        chunkedPost.slice(cutInChunkSize, cutInChunkData + 2),
        chunkedPost.slice(cutInChunkData + 2, cutInTrailer),
        chunkedPost.slice(cutInTrailer) + list.slice(0, 2), // "LI"
        list.slice(2, 20), // "ST /v1/things/items"
        list.slice(20, list.indexOf('X-Vault-') + 4),
        list.slice(list.indexOf('X-Vault-') + 4, -1), // all but the final LF
        '\n',
      ];
      expect(pieces.every((piece) => piece.length > 0)).toBe(true);
      const connection = await serverSideOf(socket);
      const reading = readResponses(socket, 2);
      await writeInPieces(socket, pieces, () => new Promise((resolve) => connection.socket.once('data', resolve)));
      const [written, listed] = await reading;
      expect(written!.status).toBe(204);
      expect(listed!.status).toBe(200);
      expect(keysOf(listed!.body)).toEqual(['c']);
      // Each piece was written once the server had read the one before: a read (at least) each.
      expect(connection.reads).toBeGreaterThanOrEqual(pieces.length);

      const check = readResponses(socket, 1);
      socket.write(raw('GET /v1/things/items/split HTTP/1.1'));
      expect(JSON.parse((await check)[0]!.body).data).toEqual({ split: `${'x'.repeat(10)} LIST / HTTP/1.1\r\n` });
    } finally {
      socket.destroy();
    }
  });

  it('lets Node answer a request it refuses with its own 400 (not a hang)', async () => {
    const socket = await openSocket(server);
    try {
      const reading = readResponses(socket, 1);
      socket.write('GET /v1/sys/health HTTP/1.1\nHost: x\n');
      expect((await reading)[0]!.status).toBe(400);
    } finally {
      socket.destroy();
    }
  });

  it('works from the Python standard library (http.client sends any method)', async () => {
    const script = [
      'import http.client, json, sys',
      'port, token = int(sys.argv[1]), sys.argv[2]',
      "conn = http.client.HTTPConnection('127.0.0.1', port)",
      'out = []',
      "for method, path in [('LIST', '/v1/things/items/'), ('GET', '/v1/things/items/a'), ('LIST', '/v1/things/items/dir')]:",
      "    conn.request(method, path, headers={'X-Vault-Token': token})",
      '    response = conn.getresponse()',
      "    out.append({'status': response.status, 'type': response.getheader('Content-Type'), 'body': json.loads(response.read())})",
      'print(json.dumps(out))',
    ].join('\n');
    const { stdout } = await run('python3', ['-c', script, String(portOf(server)), ROOT_TOKEN]);
    const [list, read, nested] = JSON.parse(stdout) as { status: number; type: string; body: { data: Record<string, unknown> } }[];
    expect(list).toMatchObject({ status: 200, type: 'application/json' });
    expect(list!.body.data.keys).toEqual(expect.arrayContaining(ITEMS));
    expect(read).toMatchObject({ status: 200, body: { data: { value: 1 } } });
    expect(nested).toMatchObject({ status: 200, body: { data: { keys: ['c'] } } });
  });
});
