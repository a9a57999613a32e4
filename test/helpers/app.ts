import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type App, type BuildOptions } from '../../src/app.js';
import { loadConfig, SHIPPED_SEED, type Config } from '../../src/config.js';

export const ADMIN_TOKEN = 'test-admin-token';
export const ROOT_TOKEN = 'test-root-token';

export interface TestServer {
  app: App;
  config: Config;
  /** `http://127.0.0.1:<port>` of the listening server. */
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * `seedPath` with API rate limiting off, unless the seed sets admin settings itself: the suite
 * sends far more than 30 requests a second with one token. Tests of the limiter give a seed with
 * `admin-settings`; a file that is not a JSON object is left for the server to refuse.
 */
export function withoutRateLimit(seedPath: string): string {
  let seed: unknown;
  try {
    seed = JSON.parse(readFileSync(seedPath, 'utf8'));
  } catch {
    return seedPath;
  }
  if (typeof seed !== 'object' || seed === null || Array.isArray(seed) || 'admin-settings' in seed) return seedPath;
  const path = join(mkdtempSync(join(tmpdir(), 'understudy-test-seed-')), 'seed.json');
  writeFileSync(path, JSON.stringify({ ...seed, 'admin-settings': { general: { 'api-rate-limiting-enabled': false } } }));
  return path;
}

const UNLIMITED_SEED = withoutRateLimit(SHIPPED_SEED);

/** A config for tests: in-memory store, known tokens, any free port, no rate limiting (see `withoutRateLimit`). */
export function testConfig(env: Record<string, string> = {}): Config {
  return loadConfig({
    UNDERSTUDY_STORE: ':memory:',
    UNDERSTUDY_PORT: '0',
    UNDERSTUDY_ADMIN_TOKEN: ADMIN_TOKEN,
    UNDERSTUDY_ROOT_TOKEN: ROOT_TOKEN,
    UNDERSTUDY_LOG_LEVEL: 'silent',
    // A small PKI key pool: tests issue a few certificates, and the suite shares the CPU.
    UNDERSTUDY_PKI_KEY_POOL: '2',
    ...env,
    UNDERSTUDY_SEED: env.UNDERSTUDY_SEED === undefined ? UNLIMITED_SEED : withoutRateLimit(env.UNDERSTUDY_SEED),
  });
}

/**
 * Builds the whole server and listens on a real loopback socket. `options` are this server's own
 * (a test's extra secrets engines go in `engines`, never into the shared default list).
 */
export async function startServer(env: Record<string, string> = {}, options: Omit<BuildOptions, 'logTo'> = {}): Promise<TestServer> {
  const config = testConfig(env);
  const app = await buildApp(config, { ...options, logTo: false });
  await app.fastify.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.fastify.server.address() as { port: number };
  return { app, config, baseUrl: `http://127.0.0.1:${port}`, close: () => app.fastify.close() };
}

/** fetch against the platform API with a bearer token and the JSON:API media type. */
export async function platform(server: TestServer, method: string, path: string, options: { token?: string | null; body?: unknown } = {}) {
  const token = options.token === undefined ? ADMIN_TOKEN : options.token;
  const headers: Record<string, string> = { accept: 'application/vnd.api+json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/vnd.api+json';
  const response = await fetch(`${server.baseUrl}/api/v2${path}`, {
    method,
    headers,
    body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
  });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
  const body: any = text === '' ? undefined : JSON.parse(text);
  return { status: response.status, headers: response.headers, body };
}

/** A call to the control plane with an optional JSON body; the answer's body parsed (undefined when empty). */
export async function control(server: TestServer, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.baseUrl}/_emulator${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
  const parsed: any = text === '' ? undefined : JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed };
}
