import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, startServer, type TestServer } from '../../helpers/app.js';

// What real clients send at the HTTP layer, checked against the real service's answers:
// sys/health and its overrides, methods, body encodings and paths sent byte for byte.

interface RawReply {
  status: number;
  contentType: string | undefined;
  text: string;
}

/** One request on its own connection, path and body exactly as given. */
function send(
  server: TestServer,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
): Promise<RawReply> {
  const url = new URL(server.baseUrl);
  const headers = { 'x-vault-token': ROOT_TOKEN, ...options.headers };
  return new Promise((resolve, reject) => {
    const request = httpRequest({ method, host: url.hostname, port: url.port, path, headers, agent: false }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'], text }));
    });
    request.on('error', reject);
    request.end(options.body);
  });
}

const JSON_BODY = { 'content-type': 'application/json' };
const EMPTY_ERRORS = '{"errors":[]}\n';

describe('secrets API request shapes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  describe('sys/health', () => {
    it('honours every status-code override the Go client sends, on GET and HEAD', async () => {
      const overrides =
        'standbyok=true&perfstandbyok=true&activecode=299&standbycode=299&drsecondarycode=299&performancestandbycode=299&sealedcode=299&uninitcode=299';
      const get = await send(server, 'GET', `/v1/sys/health?${overrides}`);
      expect(get.status).toBe(299);
      expect(JSON.parse(get.text)).toMatchObject({ initialized: true, sealed: false, standby: false });
      const head = await send(server, 'HEAD', '/v1/sys/health?activecode=204');
      expect(head.status).toBe(204);
      expect(head.text).toBe('');
    });

    it("answers HEAD (hvac's default) with the status and no body, with or without a token", async () => {
      const head = await send(server, 'HEAD', '/v1/sys/health', { headers: { 'x-vault-token': 'not-a-token' } });
      expect(head.status).toBe(200);
      expect(head.contentType).toBe('application/json');
      expect(head.text).toBe('');
    });

    it('refuses a code that is not a number, and a bad standbyok, with 400 and no messages', async () => {
      for (const query of ['activecode=abc', 'standbycode=', 'sealedcode=2x', 'standbyok=maybe', 'perfstandbyok=yes']) {
        const reply = await send(server, 'GET', `/v1/sys/health?${query}`);
        expect(reply.status, query).toBe(400);
        expect(reply.text, query).toBe(EMPTY_ERRORS);
      }
      expect((await send(server, 'HEAD', '/v1/sys/health?activecode=abc')).status).toBe(400);
    });

    it('never answers a 5xx for a code outside what HTTP can carry', async () => {
      for (const code of ['050', '0', '-1', '1000', '99999999999999999999']) {
        const reply = await send(server, 'GET', `/v1/sys/health?activecode=${code}`);
        expect(reply.status, code).toBe(400);
        expect(reply.text, code).toBe(EMPTY_ERRORS);
      }
    });

    it('answers other methods with 405 and no messages, token or not', async () => {
      for (const method of ['POST', 'PUT', 'DELETE', 'LIST']) {
        const reply = await send(server, method, '/v1/sys/health', {
          headers: { ...JSON_BODY, 'x-vault-token': '' },
          body: method === 'LIST' ? undefined : '{}',
        });
        expect(reply.status, method).toBe(405);
        expect(reply.text, method).toBe(EMPTY_ERRORS);
      }
    });
  });

  it("answers sys/init (hvac's is_initialized, the Go client's InitStatus) with a bare body, without a token", async () => {
    const reply = await send(server, 'GET', '/v1/sys/init', { headers: { 'x-vault-token': '' } });
    expect(reply.status).toBe(200);
    expect(reply.contentType).toBe('application/json');
    expect(JSON.parse(reply.text)).toEqual({ initialized: true });
  });

  describe('methods', () => {
    it('PATCH needs the merge-patch content type (415), then is an operation no core path defines (405)', async () => {
      const plain = await send(server, 'PATCH', '/v1/cubbyhole/x', { headers: JSON_BODY, body: '{"a":1}' });
      expect(plain.status).toBe(415);
      expect(JSON.parse(plain.text)).toEqual({
        errors: ['PATCH requires Content-Type of application/merge-patch+json, provided application/json'],
      });
      const merge = await send(server, 'PATCH', '/v1/cubbyhole/x', {
        headers: { 'content-type': 'application/merge-patch+json' },
        body: '{"a":1}',
      });
      expect(merge.status).toBe(405);
      expect(JSON.parse(merge.text)).toEqual({ errors: ['1 error occurred:\n\t* unsupported operation\n\n'] });
    });

    it('PATCH is authorised like any operation: no token is 403', async () => {
      const reply = await send(server, 'PATCH', '/v1/cubbyhole/x', {
        headers: { 'content-type': 'application/merge-patch+json', 'x-vault-token': '' },
        body: '{}',
      });
      expect(reply.status).toBe(403);
      expect(JSON.parse(reply.text)).toEqual({ errors: ['permission denied'] });
    });

    it('ignores X-Vault-Request', async () => {
      await send(server, 'POST', '/v1/cubbyhole/request-header', { headers: JSON_BODY, body: '{"a":"b"}' });
      const reply = await send(server, 'GET', '/v1/cubbyhole/request-header', { headers: { 'x-vault-request': 'true' } });
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.text).data).toEqual({ a: 'b' });
    });
  });

  describe('bodies', () => {
    it('reads a form body, joining repeated keys with commas', async () => {
      const form = { 'content-type': 'application/x-www-form-urlencoded' };
      expect((await send(server, 'POST', '/v1/cubbyhole/form', { headers: form, body: 'a=1&b=two&a=3' })).status).toBe(204);
      expect(JSON.parse((await send(server, 'GET', '/v1/cubbyhole/form')).text).data).toEqual({ a: '1,3', b: 'two' });
      // A form-typed body that looks like JSON is read as JSON.
      await send(server, 'POST', '/v1/cubbyhole/form', { headers: form, body: '{"json":true}' });
      expect(JSON.parse((await send(server, 'GET', '/v1/cubbyhole/form')).text).data).toEqual({ json: true });
    });

    it('reads JSON whatever the content type says, and a JSON null as no data', async () => {
      await send(server, 'PUT', '/v1/cubbyhole/typed', { headers: { 'content-type': 'text/plain' }, body: '{"k":"v"}' });
      expect(JSON.parse((await send(server, 'GET', '/v1/cubbyhole/typed')).text).data).toEqual({ k: 'v' });
      const nullBody = await send(server, 'POST', '/v1/cubbyhole/typed', { headers: JSON_BODY, body: 'null' });
      expect(nullBody.status).toBe(500);
      expect(JSON.parse(nullBody.text)).toEqual({ errors: ['1 error occurred:\n\t* missing data fields\n\n'] });
    });

    it('answers JSON that is not an object, or is cut short or nested too deep, with 400 error parsing JSON', async () => {
      for (const body of ['[1]', '"text"', '12', '{"a":', '['.repeat(100_000)]) {
        const reply = await send(server, 'POST', '/v1/cubbyhole/bad', { headers: JSON_BODY, body });
        expect(reply.status, body.slice(0, 10)).toBe(400);
        expect(reply.text).toBe('{"errors":["error parsing JSON"]}\n');
      }
    });
  });

  describe('paths', () => {
    it('keeps dot segments, literal or percent-encoded, inside the mount they were sent to', async () => {
      for (const path of ['/v1/cubbyhole/%2e%2e/sys/mounts', '/v1/cubbyhole/a/%2E%2E/b', '/v1/cubbyhole/a/../b', '/v1/cubbyhole/./a']) {
        const reply = await send(server, 'GET', path);
        expect(reply.status, path).toBe(400);
        expect(JSON.parse(reply.text).errors[0], path).toMatch(/"\." and "\.\." segments are not allowed/);
      }
    });

    it('does not let a dot segment name a different mount path', async () => {
      const reply = await send(server, 'POST', '/v1/sys/mounts/a/%2e%2e/dotted', { headers: JSON_BODY, body: '{"type":"cubbyhole"}' });
      expect(reply.status).toBe(400);
      expect((await send(server, 'GET', '/v1/sys/mounts/dotted')).status).toBe(400);
    });

    it('takes unicode, NUL and long paths without a 5xx', async () => {
      const unicode = '/v1/cubbyhole/%E2%9C%93/%F0%9F%94%91';
      expect((await send(server, 'PUT', unicode, { headers: JSON_BODY, body: '{"v":1}' })).status).toBe(204);
      expect(JSON.parse((await send(server, 'GET', unicode)).text).data).toEqual({ v: 1 });
      expect(JSON.parse((await send(server, 'GET', '/v1/cubbyhole/?list=true')).text).data.keys).toContain('✓/');
      expect((await send(server, 'GET', '/v1/cubbyhole/a%00b')).status).toBe(404);
      expect((await send(server, 'GET', `/v1/cubbyhole/${'segment/'.repeat(1000)}x`)).status).toBe(404);
    });
  });
});
