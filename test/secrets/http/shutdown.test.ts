import { Agent } from 'node:http';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ROOT_TOKEN } from '../../helpers/app.js';
import { openSocket, readResponses, send, startListServer } from './support.js';

// Closing the server must not wait for idle keep-alive connections, now that each one is a
// wrapper around the TCP socket rather than the socket itself.

/**
 * Not a pacing: a close that waited for its idle connections would end only when their keep-alive
 * timeout (72 s, Fastify's default) closed them, past the test's timeout; this bound fails first,
 * saying so. Nothing else ends that wait.
 */
const HUNG_MS = 20_000;

/** Closes the server, failing with a clear message (rather than at the test timeout) if closing hangs. */
async function closeOrFail(close: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`server.close() still pending after ${HUNG_MS} ms`)), HUNG_MS);
  });
  try {
    await Promise.race([close(), hung]);
  } finally {
    clearTimeout(timer);
  }
}

const closed = (socket: Socket) => new Promise<void>((resolve) => (socket.destroyed ? resolve() : socket.once('close', () => resolve())));

describe('server shutdown', () => {
  it('completes without waiting for idle keep-alive connections, and closes them', async () => {
    const server = await startListServer();
    const headers = { 'x-vault-token': ROOT_TOKEN };
    const agents = [new Agent({ keepAlive: true }), new Agent({ keepAlive: true })];
    const clientSockets: Socket[] = [];
    try {
      // Two pooled connections, idle after a LIST and after a GET.
      for (const [index, agent] of agents.entries()) {
        agent.on('free', (socket: Socket) => clientSockets.push(socket));
        const response = await send(server, { agent, method: index === 0 ? 'LIST' : 'GET', path: '/v1/sys/health', headers });
        expect(response.status).toBeLessThan(500);
      }
      // A raw connection, idle after a pipelined pair that ended with a LIST.
      const raw = await openSocket(server);
      clientSockets.push(raw);
      const reading = readResponses(raw, 2);
      raw.write(
        'GET /v1/sys/health HTTP/1.1\r\nHost: x\r\n\r\n' +
          `LIST /v1/sys/policies/acl HTTP/1.1\r\nHost: x\r\nX-Vault-Token: ${ROOT_TOKEN}\r\n\r\n`,
      );
      expect((await reading).map((response) => response.status)).toEqual([200, 200]);
      expect(clientSockets).toHaveLength(3);

      await closeOrFail(() => server.close());
      await Promise.all(clientSockets.map(closed));
    } finally {
      for (const agent of agents) agent.destroy();
    }
  });

  it('completes right after a keep-alive LIST when nothing is open', async () => {
    const server = await startListServer();
    const agent = new Agent({ keepAlive: true });
    try {
      await send(server, { agent, method: 'LIST', path: '/v1/sys/policies/acl', headers: { 'x-vault-token': ROOT_TOKEN } });
      agent.destroy();
      await closeOrFail(() => server.close());
    } finally {
      agent.destroy();
    }
  });
});
