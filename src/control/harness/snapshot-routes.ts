import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { invalid } from './errors.js';
import type { Snapshots } from './snapshots.js';

const BY_NAME = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;

function flag(body: unknown, name: string): boolean {
  const value = (body as Record<string, unknown> | undefined)?.[name];
  if (value !== undefined && typeof value !== 'boolean') throw invalid(`"${name}" must be true or false`);
  return value === true;
}

/**
 * `/_emulator/snapshots`: named copies of the whole world (both APIs), taken with SQLite's online
 * backup, restored atomically; exported and imported as store files.
 */
export async function snapshotRoutes(app: FastifyInstance, snapshots: Snapshots): Promise<void> {
  app.post(
    '/snapshots',
    {
      schema: {
        summary: 'take a snapshot of the world',
        body: {
          type: 'object',
          properties: { name: { type: 'string' }, replace: { type: 'boolean', description: 'overwrite a snapshot of the same name' } },
          examples: [{ name: 'before-migration' }],
        },
      },
    },
    async (request, reply) => {
      const name = (request.body as { name?: unknown } | undefined)?.name;
      if (typeof name !== 'string') throw invalid('"name" is required: 1 to 100 letters, digits, ".", "_" or "-"');
      return reply.code(201).send(await snapshots.create(name, flag(request.body, 'replace')));
    },
  );
  app.get('/snapshots', { schema: { summary: 'the snapshots, with their size and when they were taken' } }, async () => ({
    snapshots: snapshots.list(),
  }));
  app.get<{ Params: { name: string } }>('/snapshots/:name', { schema: { summary: 'one snapshot', params: BY_NAME } }, async (request) =>
    snapshots.info(request.params.name),
  );
  app.post<{ Params: { name: string } }>(
    '/snapshots/:name/restore',
    {
      schema: {
        summary: 'replace the world with the snapshot, atomically',
        description: 'Optional body `{"clock": true}` also sets the emulated clock back to the time the snapshot was taken.',
        params: BY_NAME,
      },
    },
    async (request) => ({ status: 'restored', ...snapshots.restore(request.params.name, flag(request.body, 'clock')) }),
  );
  app.delete<{ Params: { name: string } }>(
    '/snapshots/:name',
    { schema: { summary: 'delete a snapshot', params: BY_NAME } },
    async (request, reply) => {
      snapshots.remove(request.params.name);
      return reply.code(204).send();
    },
  );
  app.get<{ Params: { name: string } }>(
    '/snapshots/:name/export',
    { schema: { summary: 'the snapshot as a store file (SQLite), for import elsewhere or UNDERSTUDY_STORE', params: BY_NAME } },
    async (request, reply) => {
      const file = snapshots.existing(request.params.name);
      return reply
        .header('content-type', 'application/vnd.sqlite3')
        .header('content-disposition', `attachment; filename="${request.params.name}.sqlite"`)
        .send(createReadStream(file));
    },
  );

  // The import takes the file as it is, whatever the content type, in a scope of its own: the
  // body is handed on unread, and Snapshots.importFile writes it to disk as it arrives, counting
  // it against the import limit (no body is collected in memory).
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.post<{ Querystring: { name?: string; replace?: string } }>(
      '/snapshots/import',
      {
        schema: {
          summary: 'store an uploaded store file (an export) as a snapshot',
          description: 'A body larger than UNDERSTUDY_SNAPSHOT_IMPORT_LIMIT_MB (default 1024 MiB) is refused with 413.',
          querystring: { type: 'object', properties: { name: { type: 'string' }, replace: { type: 'string', enum: ['true', 'false'] } } },
        },
      },
      async (request, reply) => {
        const { name, replace } = request.query;
        if (name === undefined) throw invalid('give the snapshot a name: ?name=…');
        // An empty body reaches no parser: there is nothing to read.
        if (!(request.body instanceof Readable)) throw invalid('the body must be the store file');
        // A body that says it is too large is refused before a byte of it is read.
        if (Number(request.headers['content-length']) > snapshots.importLimitBytes) throw snapshots.tooLarge();
        return reply.code(201).send(await snapshots.importFile(name, request.body, replace === 'true'));
      },
    );
  });
}
