import type { FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp, type App } from '../../../src/app.js';
import { toLogicalRequest } from '../../../src/secrets/http/request.js';
import { buildSecretsContext, ENGINES } from '../../../src/secrets/plugin.js';
import { SecretsRouter } from '../../../src/secrets/router.js';
import { testConfig, ROOT_TOKEN } from '../../helpers/app.js';

/**
 * The body text of a /v1 request: parsed into the logical request's data, and let go of once
 * routing finds the route's bodies carry secrets (the journal keeps neither of them); kept, for
 * the journal, on every other route.
 */

/** A POST to /v1 as Fastify hands it over: the body as the text the content parser read. */
function posted(body: string): FastifyRequest {
  return {
    method: 'POST',
    url: '/v1/transit/encrypt/orders',
    headers: { 'content-type': 'application/json', 'x-vault-token': 'root' },
    body,
    ip: '127.0.0.1',
    protocol: 'http',
    host: 'localhost',
    raw: { socket: {} },
  } as unknown as FastifyRequest;
}

describe('the body text of a /v1 request', () => {
  it('is parsed into data and let go of when released, the data staying', () => {
    const text = JSON.stringify({ batch_input: [{ plaintext: 'aGk=' }, { plaintext: 'aGk=', reference: 'r' }] });
    const request = posted(text);
    const logical = toLogicalRequest(request);
    expect(logical.data).toEqual(JSON.parse(text));
    expect(request.body).toBe(text);
    logical.releaseBodyText?.();
    expect(request.body).toBeUndefined();
    expect(logical.data).toEqual(JSON.parse(text));
  });

  describe('routed', () => {
    let app: App;
    let router: SecretsRouter;
    beforeAll(async () => {
      app = await buildApp(testConfig(), { logTo: false });
      router = new SecretsRouter(buildSecretsContext(app.runtime, ENGINES));
    });
    afterAll(() => app.fastify.close());

    /** Routes a write; returns whether routing let go of its body text. */
    const released = async (path: string, data: Record<string, unknown>) => {
      const releaseBodyText = vi.fn();
      const response = await router.handle({ operation: 'write', path, data, clientToken: ROOT_TOKEN, releaseBodyText });
      expect(response?.status ?? 200, path).toBeLessThan(300);
      return releaseBodyText.mock.calls.length;
    };

    it('is let go of once on a route that carries secrets (transit encrypt), never on one that does not', async () => {
      expect(await released('sys/mounts/transit', { type: 'transit' })).toBe(0);
      expect(await released('transit/keys/orders', { type: 'aes256-gcm96' })).toBe(0);
      expect(await released('transit/encrypt/orders', { batch_input: [{ plaintext: 'aGk=' }] })).toBe(1);
    });
  });
});
