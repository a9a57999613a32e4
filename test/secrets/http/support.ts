import { request as httpRequest, type Agent, type IncomingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';
import { ApiError } from '../../../src/core/errors.js';
import type { Backend } from '../../../src/secrets/framework/types.js';
import { MountTable } from '../../../src/secrets/mounts/mount-table.js';
import { ENGINES } from '../../../src/secrets/plugin.js';
import { startServer, type TestServer } from '../../helpers/app.js';

/** A test-only engine with one listable path table: `items/<name>` read, written and listed. */
export const TEST_ENGINE = 'test-list';

function testListEngine(): Backend {
  return {
    type: TEST_ENGINE,
    paths: [
      {
        pattern: 'items/:name*',
        summary: 'Arbitrary JSON objects, listable by folder.',
        operations: {
          list: ({ params, storage }) => {
            const keys = storage.list(params.name ?? '');
            if (keys.length === 0) throw new ApiError(404, 'not found', { messages: [] });
            return { data: { keys } };
          },
          read: ({ params, storage }) => {
            const data = storage.get<Record<string, unknown>>(params.name ?? '');
            if (!data) throw new ApiError(404, 'not found', { messages: [] });
            return { data };
          },
          update: ({ params, storage, data }) => {
            storage.put(params.name ?? '', data);
            return undefined;
          },
        },
      },
    ],
  };
}

/** A server with the test engine mounted at `things/` holding `things/items/{a,b,dir/c}`. */
export async function startListServer(): Promise<TestServer> {
  const server = await startServer({}, { engines: new Map([...ENGINES, [TEST_ENGINE, testListEngine]]) });
  const { runtime } = server.app;
  new MountTable(runtime.store.db, runtime.clock).ensure({ path: 'things/', type: TEST_ENGINE });
  return server;
}

export const portOf = (server: TestServer): number => Number(new URL(server.baseUrl).port);

export interface Response {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** The client side's local port: equal ports mean one connection. */
  localPort: number | undefined;
}

export interface RequestOptions {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** Sent with a Content-Length. */
  body?: string;
  /** Sent one write per piece, without a Content-Length (so chunked). */
  chunks?: string[];
  agent?: Agent;
}

/** One request with Node's HTTP client, which (unlike its server) can send `LIST`. */
export function send(server: TestServer, options: RequestOptions): Promise<Response> {
  return new Promise((resolve, reject) => {
    const headers = { ...options.headers };
    if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
    const request = httpRequest(
      { host: '127.0.0.1', port: portOf(server), method: options.method, path: options.path, headers, agent: options.agent },
      (response) => {
        const localPort = response.socket.localPort;
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (text: string) => (body += text));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body, localPort }));
        response.on('error', reject);
      },
    );
    request.on('error', reject);
    if (options.body !== undefined) request.write(options.body);
    for (const piece of options.chunks ?? []) request.write(piece);
    request.end();
  });
}

export const json = (response: { body: string }): Record<string, unknown> => JSON.parse(response.body) as Record<string, unknown>;

export interface RawResponse {
  status: number;
  /** Header names lower-cased; values as sent. */
  headers: Record<string, string>;
  body: string;
}

/**
 * Reads `count` HTTP/1.1 responses off a socket, in order. Bodies are delimited by
 * Content-Length (what this server sends) or absent (204). The answers, or the connection's
 * close, end the wait; `timeoutMs` only bounds a server that does neither (a failure that says
 * what arrived, instead of the test's timeout), so it is generous: a loaded machine needs no more.
 */
export function readResponses(socket: Socket, count: number, timeoutMs = 20_000): Promise<RawResponse[]> {
  const reading = new Promise<RawResponse[]>((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const responses: RawResponse[] = [];
    const timer = setTimeout(
      () => finish(new Error(`timed out with ${responses.length}/${count} responses:\n${buffered.toString('latin1')}`)),
      timeoutMs,
    );
    const finish = (error?: Error) => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.off('close', onClose);
      if (error) reject(error);
      else resolve(responses);
    };
    const onClose = () => finish(new Error(`connection closed after ${responses.length}/${count} responses`));
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (let parsed = parseResponse(buffered); parsed; parsed = parseResponse(buffered)) {
        responses.push(parsed.response);
        buffered = buffered.subarray(parsed.length);
        if (responses.length === count) return finish();
      }
    };
    socket.on('data', onData);
    socket.on('close', onClose);
  });
  // Tests write after starting to read; a failure is seen when they await, not reported before.
  reading.catch(() => undefined);
  return reading;
}

function parseResponse(bytes: Buffer): { response: RawResponse; length: number } | undefined {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd === -1) return undefined;
  const [statusLine = '', ...lines] = bytes.toString('latin1', 0, headEnd).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  const bodyLength = Number(headers['content-length'] ?? 0);
  const length = headEnd + 4 + bodyLength;
  if (bytes.length < length) return undefined;
  const status = Number(statusLine.split(' ')[1]);
  return { response: { status, headers, body: bytes.toString('utf8', headEnd + 4, length) }, length };
}

/** A raw TCP connection to the server, with Nagle off so each write leaves as its own segment. */
export async function openSocket(server: TestServer): Promise<Socket> {
  const socket = connect({ host: '127.0.0.1', port: portOf(server), noDelay: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  return socket;
}

/**
 * Writes pieces one by one, each once the server has read the one before, so each arrives as a
 * read of its own: `serverRead` resolves at the server socket's next read (its `data` event).
 */
export async function writeInPieces(socket: Socket, pieces: readonly string[], serverRead: () => Promise<unknown>): Promise<void> {
  for (const piece of pieces) {
    const read = serverRead();
    socket.write(piece);
    await read;
  }
}
