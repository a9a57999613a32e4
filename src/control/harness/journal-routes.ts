import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HarnessError } from './errors.js';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { journalEntry, matchesFilter, parseFilter, type Journal, type JournalRecord } from './journal.js';

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
 * The most synchronous work (ms) a journal read does before letting other requests in: an
 * entry's bodies are parsed and redacted when first read, and a first read over hundreds of
 * large bodies would otherwise hold the event loop for seconds.
 */
const SLICE_MS = 8;

async function inSlices(records: JournalRecord[], each: (record: JournalRecord, index: number) => void): Promise<void> {
  let sliceStart = performance.now();
  for (let index = 0; index < records.length; index++) {
    each(records[index] as JournalRecord, index);
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
}

/** `{"requests":[…]}`, written entry by entry (never one string of every body) in bounded slices. */
async function* journalDocument(records: JournalRecord[]): AsyncGenerator<string> {
  yield '{"requests":[';
  let sliceStart = performance.now();
  for (let index = 0; index < records.length; index++) {
    yield `${index === 0 ? '' : ','}${JSON.stringify(journalEntry(records[index] as JournalRecord))}`;
    if (performance.now() - sliceStart > SLICE_MS) {
      await nextTurn();
      sliceStart = performance.now();
    }
  }
  yield ']}';
}

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
    async (request, reply) =>
      reply.type('application/json; charset=utf-8').send(Readable.from(journalDocument(on().find(filterOf(request))))),
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
      const send = (record: JournalRecord) =>
        out.write(`id: ${record.id}\nevent: request\ndata: ${JSON.stringify(journalEntry(record))}\n\n`);
      // Entries that arrive while the backlog is written wait, so none is lost or sent out of order.
      let waiting: JournalRecord[] | null = [];
      const unsubscribe = journal.subscribe((record) => {
        if (!matchesFilter(record, { ...filter, limit: undefined })) return;
        if (waiting) waiting.push(record);
        else send(record);
      });
      await inSlices(backlog, send);
      out.write(': connected\n\n');
      for (const record of waiting) send(record);
      waiting = null;
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
