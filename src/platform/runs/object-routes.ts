import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { notFound } from '../../core/errors.js';
import { registerPlatformConventions } from '../conventions.js';
import type { PlatformContext } from '../context.js';
import { readUploadToken } from '../configuration-versions/links.js';
import { refuseDeclaredOversize } from '../../core/upload-spool.js';
import { SLUG_UPLOAD_LIMIT } from '../configuration-versions/service.js';

/**
 * Run objects outside `/api/v2`, under RUN_OBJECT_PREFIX: the configuration upload link (one
 * use, short-lived) and the plan and apply log links the CLI tails. Both carry their own right.
 */
export async function runObjectPlugin(app: FastifyInstance, context: PlatformContext): Promise<void> {
  registerPlatformConventions(app, context);
  app.removeAllContentTypeParsers();
  // The slug is handed on as the request stream: the service spools it to a file with the limit
  // counted as it arrives (core/upload-spool.ts), so no body is collected in memory here.
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  const open = { config: { public: true } };
  const { configurationVersions, runLogs } = context.services;

  app.put<{ Params: { token: string } }>('/upload/:token', open, async (request, reply) => {
    const token = readUploadToken(request.params.token);
    if (!token) throw notFound('the upload link is unknown, expired or was already used');
    refuseDeclaredOversize(request.headers, SLUG_UPLOAD_LIMIT);
    const body = (request.body as Readable | undefined) ?? Buffer.alloc(0);
    await configurationVersions.upload(token.id, token.secret, body, `${request.protocol}://${request.host}`);
    return reply.code(200).send();
  });

  // A policy set version's archive (policies/versions.ts): the same kind of one-use link.
  app.put<{ Params: { token: string } }>('/policy-set-upload/:token', open, async (request, reply) => {
    const token = readUploadToken(request.params.token);
    if (!token) throw notFound('the upload link is unknown or was already used');
    await context.services.policySetVersions.upload(token.id, token.secret, (request.body as Readable | undefined) ?? Buffer.alloc(0));
    return reply.code(200).send();
  });

  /** `offset` and `limit` are byte positions in the stream (STX, the log, ETX at the end), as the Go client asks. */
  app.get<{ Params: { token: string }; Querystring: Record<string, string | undefined> }>('/logs/:token', open, async (request, reply) => {
    const phaseId = runLogs.verify(request.params.token);
    const stream = phaseId ? runLogs.stream(phaseId) : null;
    if (stream === null) throw notFound('the log link is unknown');
    const bytes = Buffer.from(stream, 'utf8');
    const number = (value: string | undefined, fallback: number) => (value !== undefined && /^\d+$/.test(value) ? Number(value) : fallback);
    const offset = number(request.query.offset, 0);
    const length = number(request.query.limit, bytes.length);
    return reply
      .code(200)
      .type('text/plain')
      .send(bytes.subarray(offset, offset + length));
  });
}
