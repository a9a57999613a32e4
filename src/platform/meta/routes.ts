import type { FastifyInstance } from 'fastify';
import { editionAllows, type Edition } from '../../core/edition.js';
import { VERSION } from '../../core/version.js';

/** The API version real clients read from ping (go-tfe gates features on it). */
export const API_VERSION = '2.6';

/**
 * The release the self-hosted edition reports, in the real `vYYYYMM-N` shape the CLI parses (a
 * semantic version makes `terraform plan` in remote mode fail). From 202302-1 on, the CLI renders
 * a workspace's structured run output (the JSON log lines, and the plan drawn from
 * `json-output-redacted`); this is that first release. Releases of that shape send no
 * `X-TFE-Current-Version` (the numeric version header came with the 1.0 releases), so neither
 * does understudy.
 */
export const TFE_RELEASE = 'v202302-1';

/** The hosted edition's `TFP-AppName`, as the real service sends it (the CLI then renders structured run output). */
export const HOSTED_APP_NAME = 'HCP Terraform';

/**
 * The headers every `/api/v2` response carries, as the real editions send them: the API version,
 * the product name, and on the self-hosted edition its release (`X-TFE-Version`, which the hosted
 * service does not send).
 */
export function versionHeaders(edition: Edition): Record<string, string> {
  return editionAllows.releaseHeader(edition)
    ? { 'TFP-API-Version': API_VERSION, 'TFP-AppName': 'Terraform Enterprise', 'X-TFE-Version': TFE_RELEASE }
    : { 'TFP-API-Version': API_VERSION, 'TFP-AppName': HOSTED_APP_NAME };
}

export async function metaRoutes(app: FastifyInstance): Promise<void> {
  // go-tfe calls ping first and reads only the headers (set on every response by the platform plugin); the status is not checked.
  app.get('/ping', { config: { public: true } }, async (_request, reply) => {
    return reply.code(204).header('X-Understudy-Version', `v${VERSION}`).send();
  });
}
