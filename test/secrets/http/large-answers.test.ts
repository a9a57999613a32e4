import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1, type Reply } from '../core/client.js';

/**
 * Answers past 16 KB go out as bytes written straight from their JSON (small ones as text): the
 * bytes must be the JSON and one newline, whole, with multi-byte characters encoded once.
 */
let server: TestServer;

beforeAll(async () => {
  server = await startServer();
  expect((await v1(server, 'POST', 'sys/mounts/big', { body: { type: 'kv' } })).status).toBe(204);
  expect((await v1(server, 'POST', 'sys/mounts/transit', { body: { type: 'transit' } })).status).toBe(204);
});
afterAll(() => server.close());

/** The answer is exactly its JSON and a newline, and Content-Length counts its bytes. */
function expectWhole(reply: Reply): void {
  expect(reply.status).toBe(200);
  expect(reply.text).toBe(`${JSON.stringify(reply.body)}\n`);
  expect(reply.headers.get('content-length')).toBe(String(Buffer.byteLength(reply.text)));
  expect(reply.headers.get('content-type')).toBe('application/json');
}

describe('large answers', () => {
  it('reads back a secret of multi-byte text past 16 KB exactly as written', async () => {
    const value = 'é日本😀 "quoted" \\ x'.repeat(2000);
    expect((await v1(server, 'PUT', 'big/text', { body: { value } })).status).toBe(204);
    const reply = await v1(server, 'GET', 'big/text');
    expectWhole(reply);
    expect(reply.text.length).toBeGreaterThan(16 * 1024);
    expect(reply.body.data).toEqual({ value });
  });

  it('answers a small read the same way, as text', async () => {
    expect((await v1(server, 'PUT', 'big/small', { body: { value: 'é日本😀' } })).status).toBe(204);
    const reply = await v1(server, 'GET', 'big/small');
    expectWhole(reply);
    expect(reply.body.data).toEqual({ value: 'é日本😀' });
  });

  it('answers a transit batch past 16 KB whole, in order, with each multi-byte reference as sent', async () => {
    const plaintext = Buffer.alloc(1024, 'p').toString('base64');
    const batch_input = Array.from({ length: 40 }, (_, index) => ({ plaintext, reference: `réf-日本-😀-${index}` }));
    const encrypted = await v1(server, 'POST', 'transit/encrypt/large', { body: { batch_input } });
    expectWhole(encrypted);
    const results = encrypted.body.data.batch_results as { ciphertext: string; key_version: number; reference: string }[];
    expect(results.map((result) => result.reference)).toEqual(batch_input.map((item) => item.reference));
    expect(results.every((result) => result.key_version === 1 && result.ciphertext.startsWith('vault:v1:'))).toBe(true);
    const decrypted = await v1(server, 'POST', 'transit/decrypt/large', {
      body: { batch_input: results.map(({ ciphertext, reference }) => ({ ciphertext, reference })) },
    });
    expectWhole(decrypted);
    expect(decrypted.body.data.batch_results).toEqual(batch_input.map(({ reference }) => ({ plaintext, reference })));
  });
});
