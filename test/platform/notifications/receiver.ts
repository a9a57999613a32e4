import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown>;
  /** Whether `X-TFE-Notification-Signature` matched the receiver's own HMAC of the body; null without a key. */
  verified: boolean | null;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** The status the next requests get (200 unless changed). */
  status: number;
  close(): Promise<void>;
}

/**
 * A webhook receiver as someone would write one: it checks the signature against its own copy
 * of the token, and answers `status` with a small body and a header of its own.
 */
export function startReceiver(key: string | null = null): Promise<Receiver> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let verified: boolean | null = null;
      if (key !== null) {
        const expected = Buffer.from(createHmac('sha512', key).update(body).digest('hex'));
        const given = Buffer.from(String(request.headers['x-tfe-notification-signature'] ?? ''));
        verified = given.length === expected.length && timingSafeEqual(given, expected);
      }
      received.push({ headers: request.headers, body, json: JSON.parse(body) as Record<string, unknown>, verified });
      response.writeHead(receiver.status, { 'content-type': 'text/plain', 'x-receiver': 'test' }).end(`answered ${receiver.status}`);
    });
  });
  const receiver: Receiver = {
    url: '',
    received,
    status: 200,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      receiver.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
      resolve(receiver);
    }),
  );
}

/** A receiver that accepts connections and never answers: what a hung destination looks like. */
export function startSilentReceiver(): Promise<{ url: string; requested: Promise<void>; close(): Promise<void> }> {
  let arrived: () => void = () => undefined;
  const requested = new Promise<void>((resolve) => (arrived = resolve));
  const server = createServer(() => arrived());
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`,
        requested,
        close: () => {
          server.closeAllConnections();
          return new Promise<void>((done) => server.close(() => done()));
        },
      }),
    ),
  );
}

/** A URL nothing listens on (a port that was free a moment ago). */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as { port: number };
  await new Promise<void>((done) => server.close(() => done()));
  return `http://127.0.0.1:${port}/hook`;
}
