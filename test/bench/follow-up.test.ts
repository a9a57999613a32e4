import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { round } from '../../bench/rounds.js';

// A paired row's follow-up is a request of its own: the wrapping row's unwrap must not carry the
// wrap's X-Vault-Wrap-TTL (it would wrap its answer again), nor any other header of the first request.

describe('bench pairs: the follow-up request', () => {
  const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      seen.push({ path: request.url ?? '', headers: request.headers });
      request.resume();
      request.on('end', () => response.end(JSON.stringify({ next: '/second', token: 'from-the-answer' })));
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((closed) => server.close(() => closed())));

  it("sends only its own headers and those read from the first answer, never the first request's", async () => {
    const result = await round(
      baseUrl,
      {
        method: 'POST',
        path: '/first',
        headers: { 'x-vault-token': 'root', 'x-vault-wrap-ttl': '5m', 'content-type': 'application/json' },
        body: '{}',
        amount: 3,
        followUp: {
          method: 'POST',
          headers: { 'content-type': 'application/octet-stream' },
          body: Buffer.from('{}'),
          pathFrom: (body) => (JSON.parse(body) as { next: string }).next,
          headersFrom: (body) => ({ 'x-vault-token': (JSON.parse(body) as { token: string }).token }),
        },
      },
      1,
      1,
    );
    expect(result.errors).toBe(0);
    const firsts = seen.filter((request) => request.path === '/first');
    const seconds = seen.filter((request) => request.path === '/second');
    expect(firsts.length).toBeGreaterThan(0);
    expect(seconds.length).toBeGreaterThan(0);
    for (const { headers } of firsts) {
      expect(headers).toMatchObject({ 'x-vault-token': 'root', 'x-vault-wrap-ttl': '5m', 'content-type': 'application/json' });
    }
    for (const { headers } of seconds) {
      expect(headers['x-vault-wrap-ttl']).toBeUndefined();
      expect(headers).toMatchObject({ 'x-vault-token': 'from-the-answer', 'content-type': 'application/octet-stream' });
    }
  });
});
