import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { round } from '../../bench/rounds.js';
import { runRequest, RUNS_PER_ROUND } from '../../bench/run-driver.js';

// A whole-run row sends as many runs in every round however many rounds there are: shared out, a
// fixed total made each round shorter as rounds were added, down to a quarter of a second at 9,
// read to the server's 10 ms CPU ticks (the notification row's per-round spread came from that).

describe('bench rounds: a fixed amount per round', () => {
  let received = 0;
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    server = createServer((request, response) => {
      received += 1;
      request.resume();
      request.on('end', () => response.end('ok'));
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((closed) => server.close(() => closed())));
  beforeEach(() => {
    received = 0;
  });

  it('sends amountPerRound requests in a round, whatever share of the rounds it is', async () => {
    const result = await round(baseUrl, { method: 'POST', path: '/run', amountPerRound: 7 }, 1, 2, 1 / 9);
    expect(result.errors).toBe(0);
    expect(received).toBe(7);
  });

  it('still shares a fixed amount out over the rounds', async () => {
    await round(baseUrl, { method: 'POST', path: '/run', amount: 18 }, 1, 2, 1 / 9);
    expect(received).toBe(2);
  });

  it('gives the whole-run rows their runs per round', async () => {
    expect(await runRequest()).toEqual({ method: 'POST', path: '/run', amountPerRound: RUNS_PER_ROUND });
  });
});
