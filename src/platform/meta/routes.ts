import type { FastifyInstance } from 'fastify';
import { VERSION } from '../../core/version.js';

/** The API version real clients read from ping (go-tfe gates features on it). */
export const API_VERSION = '2.6';

export async function metaRoutes(app: FastifyInstance): Promise<void> {
  // go-tfe calls ping first and reads only the headers; the status is not checked.
  app.get('/ping', { config: { public: true } }, async (_request, reply) => {
    return reply
      .code(204)
      .header('TFP-API-Version', API_VERSION)
      .header('TFP-AppName', 'understudy')
      .header('X-TFE-Version', `v${VERSION}`)
      .header('X-TFE-Current-Version', `v${VERSION}`)
      .send();
  });
}
