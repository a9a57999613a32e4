/**
 * The bench's yardstick: the least a Fastify + SQLite server can do per request. One route, one
 * prepared primary-key select on a 10k-row table, logger off. understudy's rows are reported as a
 * ratio to this, so the figures mean something on any machine.
 *
 * Run as a child process by bench/run.ts; prints `ready <port>` once listening.
 */
import Database from 'better-sqlite3';
import Fastify from 'fastify';

const ROWS = 10_000;

const sqlite = new Database(':memory:');
sqlite.exec('CREATE TABLE kv (id INTEGER PRIMARY KEY, val TEXT NOT NULL)');
const insert = sqlite.prepare('INSERT INTO kv (id, val) VALUES (?, ?)');
sqlite.transaction(() => {
  for (let id = 1; id <= ROWS; id += 1) insert.run(id, `value-${id}`);
})();
const select = sqlite.prepare('SELECT id, val FROM kv WHERE id = ?');

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

await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address() as { port: number };
process.stdout.write(`ready ${port}\n`);

process.once('SIGTERM', () => {
  app.close().then(() => process.exit(0));
});
