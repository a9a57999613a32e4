import { spell, spellKeys, type Dialect } from '../../core/dialect.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { ConfigurationVersionMeta } from './repo.js';

/** The `configuration-versions` resource; `uploadUrl` only in the create answer (the secret exists only then). */
export function configurationVersionResource(
  version: ConfigurationVersionMeta,
  dialect: Dialect,
  uploadUrl: string | null = null,
): ResourceObject {
  const base = `/api/v2/configuration-versions/${version.id}`;
  return {
    id: version.id,
    type: 'configuration-versions',
    attributes: spellKeys<unknown>(
      {
        'auto-queue-runs': version.autoQueueRuns,
        error: version.error,
        'error-message': version.errorMessage,
        source: spell(version.source, dialect),
        speculative: version.speculative,
        provisional: version.provisional,
        status: version.status,
        'status-timestamps': version.statusTimestamps,
        'changed-files': [],
        'upload-url': uploadUrl,
      },
      dialect,
    ),
    relationships: {
      'ingress-attributes': { data: null, links: { related: `${base}/ingress-attributes` } },
    },
    links: { self: base, download: `${base}/download` },
  };
}
