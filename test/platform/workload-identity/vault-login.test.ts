import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KeptAliveAgents } from '../../../src/core/kept-alive.js';
import type { VaultLogin } from '../../../src/platform/workload-identity/settings.js';
import { LoginFailed, loginWithJwt } from '../../../src/platform/workload-identity/vault-login.js';

/**
 * The platform's HTTP client for secrets API logins against a bare server that records what it
 * receives: the wire of a login and a revocation, and a login given up when the phase's signal aborts.
 */
describe('loginWithJwt (the client side of a secrets API login)', () => {
  let server: Server;
  let address: string;
  const agents = new KeptAliveAgents();
  /** Each request as received; `answer` decides the reply (or holds it). */
  const received: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
  let answer: (request: IncomingMessage, response: ServerResponse) => void;

  beforeAll(async () => {
    server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        received.push({
          method: request.method ?? '',
          url: request.url ?? '',
          headers: request.headers,
          body: Buffer.concat(chunks).toString(),
        });
        answer(request, response);
      });
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    address = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterEach(() => {
    received.length = 0;
  });
  afterAll(async () => {
    agents.destroy();
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });

  const login = (extra: Partial<VaultLogin> = {}): VaultLogin => ({
    tag: null,
    address,
    role: 'run',
    authPath: 'jwt',
    namespace: null,
    audience: 'vault.workload.identity',
    caCert: null,
    ...extra,
  });

  it('posts {role, jwt} to auth/<path>/login and revokes with the token it got, each with the headers it needs', async () => {
    answer = (request, response) => {
      if (request.url?.endsWith('/login')) {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ auth: { client_token: 'hvs.issued' } }));
      } else response.writeHead(204).end();
    };
    const session = await loginWithJwt(agents, login({ namespace: 'team-a', authPath: 'tfc jwt' }), 'the.signed.jwt');
    expect(session.token).toBe('hvs.issued');
    expect(await session.revoke()).toBeNull();

    const [sent, revoked] = received;
    expect(sent).toMatchObject({ method: 'POST', url: '/v1/auth/tfc%20jwt/login', body: '{"role":"run","jwt":"the.signed.jwt"}' });
    expect(sent?.headers).toMatchObject({
      accept: 'application/json',
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength('{"role":"run","jwt":"the.signed.jwt"}')),
      'x-vault-namespace': 'team-a',
    });
    expect(sent?.headers['x-vault-token']).toBeUndefined();
    expect(revoked).toMatchObject({ method: 'POST', url: '/v1/auth/token/revoke-self', body: '' });
    expect(revoked?.headers).toMatchObject({ accept: 'application/json', 'x-vault-namespace': 'team-a', 'x-vault-token': 'hvs.issued' });
    expect(revoked?.headers['content-type']).toBeUndefined();
  });

  it("gives the login up when the phase's signal aborts while the answer is awaited", async () => {
    const controller = new AbortController();
    answer = () => controller.abort(); // Never answers: the abort alone ends the wait.
    await expect(loginWithJwt(agents, login(), 'the.signed.jwt', controller.signal)).rejects.toThrow(
      new LoginFailed(`could not reach ${address}/v1/auth/jwt/login: The operation was aborted`),
    );
  });

  it('sends nothing when the signal had aborted already', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(loginWithJwt(agents, login(), 'the.signed.jwt', controller.signal)).rejects.toThrow(
      new LoginFailed(`could not reach ${address}/v1/auth/jwt/login: The operation was aborted`),
    );
    expect(received).toEqual([]);
  });
});
