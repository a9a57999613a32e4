import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, ROOT_TOKEN, startServer, type TestServer } from '../helpers/app.js';

/**
 * A seeded fuzz over every operation of the OpenAPI document (both APIs, the registry, the
 * control plane): each gets a few requests with generated path parameters, queries and bodies,
 * and none may answer 5xx, except the faithful ones the README documents. Small enough for CI;
 * `FUZZ_SEED=<n>` replays a run, `FUZZ_ROUNDS=<n>` makes it longer.
 */

const SEED = Number(process.env.FUZZ_SEED ?? 20261125);
const ROUNDS = Number(process.env.FUZZ_ROUNDS ?? 3);

/** mulberry32: a small seeded generator, so a failure names the seed that reproduces it. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const deep = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

const SEGMENTS = [
  'understudy',
  'fuzz',
  'x',
  'ws-doesnotexist',
  'mod-0000',
  '1.0.0',
  '..',
  '%2e%2e',
  'a'.repeat(300),
  '%F0%9F%98%80',
  '%ED%A0%80',
  '0',
  '-1',
  '99999999999999999999',
  'null',
  '%00',
  'private',
  'aws',
];

const SCALARS = [null, true, 0, -1, 1e308, 1e20, '', 'x', '\ud800', 'a'.repeat(5000), '1h', '-5s', [], {}];

const QUERIES = [
  '',
  '?list=true',
  '?page[size]=0&page[number]=-1',
  '?page[size]=1e9',
  '?include=everything',
  '?filter[x]=%ff',
  '?q=%25&search[name]=\\',
];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)] as T;
}

/** An object with a few attributes, named from the operation's schema when it has some. */
function attributes(random: () => number, names: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const count = 1 + Math.floor(random() * 4);
  for (let index = 0; index < count; index++) out[names.length > 0 ? pick(random, names) : `f${index}`] = pick(random, SCALARS);
  return out;
}

function body(random: () => number, names: string[], type: string): string | undefined {
  switch (Math.floor(random() * 9)) {
    case 0:
      return undefined;
    case 1:
      return pick(random, ['', 'null', '[]', '{', '"x"', '{"data":null}', '{"data":[]}', '{"data":{"attributes":7}}']);
    case 2:
      return `{"data":${deep(5_000)}}`;
    case 3:
      return JSON.stringify({ data: { type, attributes: attributes(random, names) } });
    case 4:
      return JSON.stringify({ data: { type: pick(random, ['', 'x', type]), id: pick(random, SEGMENTS), attributes: {} } });
    default:
      return JSON.stringify(attributes(random, names));
  }
}

interface Operation {
  method: string;
  path: string;
  /** Property names the operation's request body schema mentions (attributes included). */
  names: string[];
}

function propertyNames(schema: unknown, into: Set<string> = new Set(), depth = 0): Set<string> {
  if (typeof schema !== 'object' || schema === null || depth > 6) return into;
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  for (const [name, child] of Object.entries(properties ?? {})) {
    if (!['data', 'attributes', 'relationships'].includes(name)) into.add(name);
    propertyNames(child, into, depth + 1);
  }
  return into;
}

/** Faithful 5xx answers the README documents (the real services answer them too). */
function documented(operation: Operation, status: number, text: string): boolean {
  if (status === 500 && text.includes('missing data fields')) return true; // an empty cubbyhole write
  if (operation.path.includes('smtp-settings') && (status === 500 || status === 504)) return true; // the test mail
  if (operation.path.includes('/registry/public/') && status === 502) return true; // the public registry proxy
  return false;
}

describe('every OpenAPI operation, fuzzed', () => {
  let server: TestServer;
  const operations: Operation[] = [];
  beforeAll(async () => {
    server = await startServer();
    const document = (await (await fetch(`${server.baseUrl}/_emulator/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { requestBody?: { content?: Record<string, { schema?: unknown }> } }>>;
    };
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        // A live event stream answers for as long as its client listens: nothing to fuzz, and it never ends.
        if (path.endsWith('/stream')) continue;
        const schemas = Object.values(operation.requestBody?.content ?? {}).map((content) => content.schema);
        const names = new Set<string>();
        for (const schema of schemas) propertyNames(schema, names);
        operations.push({ method: method.toUpperCase(), path, names: [...names] });
      }
    }
  });
  afterAll(() => server.close());

  it(`answers no generated request with an undocumented 5xx (seed ${SEED}, ${ROUNDS} rounds)`, async () => {
    expect(operations.length).toBeGreaterThan(300);
    const random = generator(SEED);
    const failures: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const operation of operations) {
        const path = operation.path.replace(/\{[^}]+\}/g, () => pick(random, SEGMENTS));
        const type =
          operation.path
            .split('/')
            .filter((part) => part && !part.startsWith('{'))
            .pop() ?? 'x';
        const payload = operation.method === 'GET' || operation.method === 'DELETE' ? undefined : body(random, operation.names, type);
        const response = await server.app.fastify.inject({
          method: operation.method as 'GET',
          url: `${path}${operation.method === 'GET' ? pick(random, QUERIES) : ''}`,
          headers: {
            authorization: `Bearer ${ADMIN_TOKEN}`,
            'x-vault-token': ROOT_TOKEN,
            ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          },
          ...(payload === undefined ? {} : { payload }),
        });
        if (response.statusCode >= 500 && !documented(operation, response.statusCode, response.body)) {
          failures.push(`${operation.method} ${path} ${payload?.slice(0, 120)} -> ${response.statusCode} ${response.body.slice(0, 160)}`);
        }
      }
    }
    expect(failures, `FUZZ_SEED=${SEED}`).toEqual([]);
  }, 120_000);

  it('leaves the store whole: SQLite integrity check and every full-text index check pass', () => {
    const { sqlite } = server.app.runtime.store;
    const indexes = sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%fts5%'")
      .all() as {
      name: string;
    }[];
    expect(indexes.map((index) => index.name).sort()).toEqual(['team_names', 'user_names', 'workspace_names']);
    for (const { name } of indexes)
      expect(() => sqlite.exec(`INSERT INTO ${name} (${name}) VALUES ('integrity-check')`), name).not.toThrow();
    expect(sqlite.pragma('integrity_check', { simple: true })).toBe('ok');
  });
});
