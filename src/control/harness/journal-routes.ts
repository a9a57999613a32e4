import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HarnessError } from './errors.js';
import { journalEntry, matchesFilter, parseFilter, type Journal } from './journal.js';

const FILTERS = {
  type: 'object',
  properties: {
    method: { type: 'string', description: 'GET, POST, LIST, …' },
    path: { type: 'string', description: 'a path glob: * within a segment, ** across segments (/v1/secret/**)' },
    prefix: { type: 'string', description: 'a path prefix such as /api/v2, /api/registry or /v1' },
    status: { type: 'string', description: 'a status (503) or a class (5xx)' },
    since: { type: 'string', description: 'an RFC 3339 time, or an entry id: only later entries' },
    'token-accessor': { type: 'string', description: "a secrets token's accessor or a platform token's id" },
    faulted: { type: 'string', description: 'only requests a fault rule did (or did not) touch' },
    limit: { type: 'string', description: 'at most this many, the most recent ones' },
  },
} as const;

/** Seconds between comment lines on an idle stream, so proxies and clients keep it open. */
const KEEPALIVE_MS = 15_000;

/**
 * `/_emulator/requests`: the request journal. Entries come oldest first; every filter is a
 * query parameter, and `count` takes the same ones (for "called exactly N times" assertions).
 */
export function journalRoutes(app: FastifyInstance, journal: Journal | null): void {
  const on = (): Journal => {
    if (journal === null) throw new HarnessError(409, 'the request journal is off (UNDERSTUDY_JOURNAL_SIZE=0)');
    return journal;
  };
  const filterOf = (request: FastifyRequest) => parseFilter(request.query as Record<string, unknown>);
  // Open streams never end on their own; closing the server ends them.
  const streams = new Set<() => void>();
  app.addHook('preClose', async () => {
    for (const end of streams) end();
  });

  app.get(
    '/requests',
    { schema: { summary: 'requests to /api/v2, the registry and /v1, oldest first, secrets redacted', querystring: FILTERS } },
    async (request) => ({ requests: on().find(filterOf(request)).map(journalEntry) }),
  );
  app.get(
    '/requests/count',
    { schema: { summary: 'how many journal entries match the filters', querystring: FILTERS } },
    async (request) => ({
      count: on().count(filterOf(request)),
    }),
  );
  app.delete('/requests', { schema: { summary: 'empty the journal' } }, async () => ({ cleared: on().clear() }));

  app.get(
    '/requests/stream',
    { schema: { summary: 'new journal entries as server-sent events (one `request` event each)', querystring: FILTERS } },
    async (request, reply: FastifyReply) => {
      const journal = on();
      const filter = filterOf(request);
      const backlog = filter.sinceId !== undefined || filter.sinceMs !== undefined ? journal.find(filter) : [];
      reply.hijack();
      const out = reply.raw;
      out.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
      const send = (record: Parameters<typeof journalEntry>[0]) =>
        out.write(`id: ${record.id}\nevent: request\ndata: ${JSON.stringify(journalEntry(record))}\n\n`);
      for (const record of backlog) send(record);
      out.write(': connected\n\n');
      const unsubscribe = journal.subscribe((record) => {
        if (matchesFilter(record, { ...filter, limit: undefined })) send(record);
      });
      const keepalive = setInterval(() => out.write(': keepalive\n\n'), KEEPALIVE_MS);
      keepalive.unref();
      const end = () => out.destroy();
      streams.add(end);
      request.raw.socket.once('close', () => {
        clearInterval(keepalive);
        unsubscribe();
        streams.delete(end);
      });
    },
  );
}
