/**
 * The bench's yardsticks, both in one process:
 *
 * - `GET /kv/:id`: the least a Fastify + SQLite server can do per request. One prepared
 *   primary-key select on a 10k-row table, a tiny body, logger off.
 * - `GET /doc/:id`: the same server doing the least an API read can honestly do. One bearer-token
 *   lookup (SHA-256 of the token, prepared select by hash, as the platform authenticates), one
 *   prepared primary-key select of a 30-column row, and a JSON:API document of about 2.2 KB built
 *   from it — the size of a workspace. Point reads are compared with this one, like with like.
 *
 * - `POST /transit/encrypt`: a transit batch's own work with nothing around it. The same bearer
 *   lookup, then for each `batch_input` item what the secrets API must do to answer it: decode
 *   its base64 plaintext, AES-256-GCM with a random 12-byte nonce, and `vault:v1:` +
 *   base64(nonce, ciphertext, tag) in the answer. A transit batch is compared with this one.
 *
 * Run as a child process by bench/run.ts; prints `ready <port>` once listening.
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { BASELINE_TOKEN } from './baseline-token.js';

const ROWS = 10_000;

const sqlite = new Database(':memory:');
sqlite.exec('CREATE TABLE kv (id INTEGER PRIMARY KEY, val TEXT NOT NULL)');
const insert = sqlite.prepare('INSERT INTO kv (id, val) VALUES (?, ?)');
sqlite.transaction(() => {
  for (let id = 1; id <= ROWS; id += 1) insert.run(id, `value-${id}`);
})();
const select = sqlite.prepare('SELECT id, val FROM kv WHERE id = ?');

// The document route's tables: tokens by hash, and rows wide enough to fill a workspace-sized document.
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
sqlite.exec('CREATE TABLE tokens (id TEXT PRIMARY KEY, hash TEXT NOT NULL UNIQUE, user_id TEXT NOT NULL)');
const columns = Array.from({ length: 45 }, (_, index) => `flag_${index}`);
sqlite.exec(
  'CREATE TABLE docs (id TEXT PRIMARY KEY, name TEXT NOT NULL, description TEXT, created_at INTEGER NOT NULL, ' +
    `updated_at INTEGER NOT NULL, tool_version TEXT NOT NULL, ${columns.map((column) => `${column} INTEGER NOT NULL`).join(', ')})`,
);
const insertDoc = sqlite.prepare(`INSERT INTO docs VALUES (?, ?, NULL, ?, ?, '1.12.2', ${columns.map(() => '?').join(', ')})`);
sqlite.transaction(() => {
  for (let id = 1; id <= ROWS; id += 1)
    insertDoc.run(`doc-${id}`, `name-${id}`, Date.now(), Date.now(), ...columns.map((_, index) => (id + index) % 2));
  sqlite.prepare('INSERT INTO tokens VALUES (?, ?, ?)').run('at-1', sha256(BASELINE_TOKEN), 'user-1');
})();
const tokenByHash = sqlite.prepare('SELECT id, user_id FROM tokens WHERE hash = ?');
const docById = sqlite.prepare('SELECT * FROM docs WHERE id = ?');

type DocRow = Record<string, string | number | null> & { id: string; name: string; created_at: number; updated_at: number };

function document(row: DocRow) {
  const attributes: Record<string, unknown> = {
    name: row.name,
    description: row.description,
    'tool-version': row.tool_version,
    'created-at': new Date(row.created_at).toISOString(),
    'updated-at': new Date(row.updated_at).toISOString(),
  };
  for (const column of columns) attributes[`attribute-${column.replace('_', '-')}`] = row[column] === 1;
  const permissions: Record<string, boolean> = {};
  for (const column of columns.slice(0, 17)) permissions[`can-do-${column.replace('_', '-')}`] = row[column] === 1;
  attributes['permissions'] = permissions;
  const relationships: Record<string, unknown> = {};
  for (const name of [
    'organization',
    'agent-pool',
    'current-configuration-version',
    'current-run',
    'latest-run',
    'current-state-version',
    'current-assessment-result',
    'project',
    'locked-by',
    'readme',
  ]) {
    relationships[name] = { data: name === 'organization' ? { id: 'baseline', type: 'organizations' } : null };
  }
  relationships['tags'] = { data: [] };
  return {
    data: {
      id: row.id,
      type: 'docs',
      attributes,
      relationships,
      links: { self: `/doc/${row.id}`, 'self-html': `/app/baseline/docs/${row.name}` },
    },
  };
}

const app = Fastify({ logger: false });
// Schemas on params and response, as understudy's routes have, so serialization costs the same kind.
app.get<{ Params: { id: number } }>(
  '/kv/:id',
  {
    schema: {
      params: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] },
      response: { 200: { type: 'object', properties: { id: { type: 'integer' }, val: { type: 'string' } } } },
    },
  },
  async (request, reply) => select.get(request.params.id) ?? reply.code(404).send(),
);

app.get<{ Params: { id: string } }>('/doc/:id', async (request, reply) => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match?.[1] || tokenByHash.get(sha256(match[1])) === undefined) return reply.code(401).send({ errors: [{ status: '401' }] });
  const row = docById.get(request.params.id) as DocRow | undefined;
  if (!row) return reply.code(404).send({ errors: [{ status: '404' }] });
  return reply.type('application/vnd.api+json').send(document(row));
});

// One key for every item, as a transit key's version is read once per request.
const transitKey = randomBytes(32);

/** `vault:v1:` + base64(nonce, ciphertext, tag) of one item, its nonce cut from the request's random bytes. */
function sealed(plaintext: Buffer, nonce: Buffer): string {
  const cipher = createCipheriv('aes-256-gcm', transitKey, nonce);
  return `vault:v1:${Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]).toString('base64')}`;
}

// The least a batch can cost: the nonces from one call for the random source, and the answer
// written as one string, with no object per item and no serializer walking them.
app.post<{ Body: { batch_input?: { plaintext?: unknown }[] } }>('/transit/encrypt', async (request, reply) => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  if (!match?.[1] || tokenByHash.get(sha256(match[1])) === undefined) return reply.code(403).send({ errors: ['permission denied'] });
  const items = request.body.batch_input;
  if (!Array.isArray(items)) return reply.code(400).send({ errors: ['missing batch_input'] });
  const nonces = randomBytes(12 * items.length);
  let answer = '{"data":{"batch_results":[';
  items.forEach((item, index) => {
    if (index > 0) answer += ',';
    answer +=
      typeof item.plaintext === 'string'
        ? `{"ciphertext":"${sealed(Buffer.from(item.plaintext, 'base64'), nonces.subarray(12 * index, 12 * index + 12))}","key_version":1}`
        : '{"error":"missing plaintext"}';
  });
  return reply.type('application/json').send(`${answer}]}}`);
});

await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address() as { port: number };
process.stdout.write(`ready ${port}\n`);

process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
