import type { FastifyInstance } from 'fastify';
import { registerPlatformConventions } from '../conventions.js';
import type { PlatformContext } from '../context.js';
import { notFound } from '../../core/errors.js';
import { readUploadToken } from './links.js';

/** The largest state an upload link takes. */
export const STATE_UPLOAD_LIMIT = 64 * 1024 * 1024;

/**
 * The object store of state: upload links (one-time, `PUT` of the raw bytes) and download links
 * (signed, short-lived). Both carry their own right, as clients fetch them without the API token.
 * Registered under OBJECT_PREFIX.
 */
export async function stateObjectPlugin(app: FastifyInstance, runtime: PlatformContext): Promise<void> {
  registerPlatformConventions(app, runtime);
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: STATE_UPLOAD_LIMIT }, (_request, body, done) => done(null, body));
  const service = runtime.services.stateVersions;
  const signer = runtime.services.stateLinks;
  const open = { config: { public: true, secretParams: ['token'] } };

  app.put<{ Params: { token: string } }>('/upload/:token', { ...open, bodyLimit: STATE_UPLOAD_LIMIT }, async (request, reply) => {
    const token = readUploadToken(request.params.token);
    if (!token) throw notFound('the upload link is unknown or was already used');
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    service.upload(token.stateVersionId, token.kind, token.secret, body);
    return reply.code(200).send();
  });

  app.get<{ Params: { token: string } }>('/download/:token', open, async (request, reply) => {
    const link = signer.verify(request.params.token);
    if (!link) throw notFound('the download link is unknown or has expired');
    return reply.code(200).type('application/json').send(service.download(link.stateVersionId, link.kind));
  });
}
