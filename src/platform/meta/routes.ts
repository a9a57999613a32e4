import type { FastifyInstance } from 'fastify';
import { VERSION } from '../../core/version.js';

/** The API version real clients read from ping (go-tfe gates features on it). */
export const API_VERSION = '2.6';

/**
 * The release the self-hosted edition reports, in the real `vYYYYMM-N` shape the CLI parses (a
 * semantic version makes `terraform plan` in remote mode fail). A release before 202302-1 tells
 * the CLI to print a run's log as it streams rather than re-render structured run output, which
 * understudy does not model.
 */
export const TFE_RELEASE = 'v202301-1';

export async function metaRoutes(app: FastifyInstance): Promise<void> {
  // go-tfe calls ping first and reads only the headers; the status is not checked.
  app.get('/ping', { config: { public: true } }, async (_request, reply) => {
    return reply
      .code(204)
      .header('TFP-API-Version', API_VERSION)
      .header('TFP-AppName', 'understudy')
      .header('X-TFE-Version', TFE_RELEASE)
      .header('X-TFE-Current-Version', TFE_RELEASE)
      .header('X-Understudy-Version', `v${VERSION}`)
      .send();
  });
}
