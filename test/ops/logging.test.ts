import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { redactUrl } from '../../src/core/redact.js';
import { logDestination } from '../../src/logging.js';
import { ADMIN_TOKEN, ROOT_TOKEN, testConfig } from '../helpers/app.js';
import { startProcess } from './process.js';

describe('request logs', () => {
  const text: string[] = [];
  let app: App;
  let baseUrl: string;
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        text.push(chunk.toString());
        done();
      },
    });
    app = await buildApp(testConfig({ UNDERSTUDY_LOG_LEVEL: 'info' }), { logTo: stream });
    await app.fastify.listen({ host: '127.0.0.1', port: 0 });
    baseUrl = `http://127.0.0.1:${(app.fastify.server.address() as { port: number }).port}`;
  });
  afterAll(() => app.fastify.close());

  it('never carry a token, whether sent in a header or in the query string', async () => {
    await fetch(`${baseUrl}/v1/auth/token/lookup?token=${ROOT_TOKEN}&list=true`, { headers: { 'x-vault-token': ROOT_TOKEN } });
    await fetch(`${baseUrl}/v1/sys/mounts?client_token=${ROOT_TOKEN}`, { headers: { 'x-store-token': ROOT_TOKEN } });
    await fetch(`${baseUrl}/api/v2/organizations?access_token=${ADMIN_TOKEN}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const log = text.join('');
    expect(log).toContain('/v1/auth/token/lookup?token=[redacted]&list=true');
    expect(log).toContain('/api/v2/organizations?access_token=[redacted]');
    expect(log).not.toContain(ROOT_TOKEN);
    expect(log).not.toContain(ADMIN_TOKEN);
  });
});

describe('redactUrl', () => {
  it('replaces the values of secret-named parameters and keeps the rest as sent', () => {
    expect(redactUrl('/v1/x?list=true&token=abc&Password=p&page%5Bsize%5D=2')).toBe(
      '/v1/x?list=true&token=[redacted]&Password=[redacted]&page%5Bsize%5D=2',
    );
    expect(redactUrl('/v1/x?client%5Ftoken=abc')).toBe('/v1/x?client%5Ftoken=[redacted]');
    expect(redactUrl('/v1/x')).toBe('/v1/x');
    expect(redactUrl('/_archivist/v1/object/upload/sv-1.state.s3cret')).toBe('/_archivist/v1/object/upload/[redacted]');
    expect(redactUrl('/_archivist/v1/object/download/sv-1~state.1.sig?x=1')).toBe('/_archivist/v1/object/download/[redacted]?x=1');
    expect(redactUrl('/api/registry/archives/v.1.sig/m.tar.gz')).toBe('/api/registry/archives/[redacted]/m.tar.gz');
    expect(redactUrl('/v1/x?flag&%E0=1')).toBe('/v1/x?flag&%E0=1');
  });
});

/** A stand-in for stderr that records what is written and says whether it is a terminal. */
function fakeStderr(isTTY: boolean): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(chunk.toString());
      done();
    },
  }) as unknown as NodeJS.WriteStream;
  Object.assign(stream, { isTTY });
  return { stream, text: () => chunks.join('') };
}

describe('log format', () => {
  it.each([
    ['auto', true, 'pretty'],
    ['auto', false, 'json'],
    ['pretty', false, 'pretty'],
    ['json', true, 'json'],
  ] as const)('UNDERSTUDY_LOG_FORMAT=%s with stderr a terminal: %s gives %s lines, still redacted', async (format, tty, expected) => {
    const stderr = fakeStderr(tty);
    const config = testConfig({ UNDERSTUDY_LOG_LEVEL: 'info', UNDERSTUDY_LOG_FORMAT: format });
    const app = await buildApp(config, { logTo: await logDestination(config, stderr.stream) });
    try {
      await app.fastify.inject({ method: 'GET', url: `/v1/sys/mounts?token=${ROOT_TOKEN}`, headers: { 'x-vault-token': ROOT_TOKEN } });
    } finally {
      await app.fastify.close();
    }
    const lines = stderr
      .text()
      .split('\n')
      .filter((line) => line.trim() !== '');
    const incoming = lines.find((line) => line.includes('incoming request'));
    expect(incoming).toBeDefined();
    const isJson = (line: string) => {
      try {
        return typeof JSON.parse(line) === 'object';
      } catch {
        return false;
      }
    };
    expect(isJson(incoming as string)).toBe(expected === 'json');
    if (expected === 'pretty') expect(incoming).toMatch(/INFO/);
    expect(stderr.text()).toContain('token=[redacted]');
    expect(stderr.text()).not.toContain(ROOT_TOKEN);
  });
});

describe('process warnings', () => {
  it('reach the log as one JSON line each, such as the cloud SDK’s Node-version notice when its adapter loads', async () => {
    const server = await startProcess({ env: { UNDERSTUDY_PORT: '0', UNDERSTUDY_STORE: ':memory:', UNDERSTUDY_LOG_FORMAT: 'json' } });
    let stderr: string;
    try {
      const address = server.banner.exports['VAULT_ADDR'] ?? '';
      const token = server.banner.exports['VAULT_TOKEN'] ?? '';
      const call = (path: string, body?: unknown) =>
        fetch(`${address}/v1/${path}`, { method: 'POST', headers: { 'x-vault-token': token }, body: JSON.stringify(body ?? {}) });
      const key = { access_key: 'AKIDSTANDIN', secret_key: 'stand-in', key_type: 'ECDSA', curve: 'P256', kms_key: 'alias/w' };
      expect((await call('sys/managed-keys/cloud-a-kms/warned', { ...key, allow_generate_key: true })).status).toBeLessThan(300);
      expect((await call('sys/managed-keys/cloud-a-kms/warned/test/sign')).status).toBe(204);
    } finally {
      // Node emits a warning on a later tick: everything the process wrote is in once it has exited.
      stderr = (await server.stop()).stderr;
    }
    const lines = stderr.split('\n').filter((line) => line !== '');
    for (const line of lines) expect(() => JSON.parse(line) as unknown, line).not.toThrow();
    const warnings = lines.map((line) => JSON.parse(line) as { msg?: string; warning?: string }).filter((entry) => entry.warning);
    if (Number(process.versions.node.split('.')[0]) < 22) {
      expect(warnings.map((entry) => entry.msg)).toContainEqual(expect.stringContaining('NodeVersionSupportWarning'));
    }
  });
});
