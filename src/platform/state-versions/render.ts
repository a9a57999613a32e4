import type { DbOrTx } from '../../store/store.js';
import { backingDataDeleted } from '../backing-data.js';
import type { OrganizationRow } from '../auth/principal.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { uploadPath, type StateDownloadLinks } from './links.js';
import { outputsOf, type StateVersionMeta, type StateVersionOutputRow } from './repo.js';
import { stateVersionResource } from './resource.js';

/** The one-time upload secrets, known only while answering the create request. */
export type UploadSecrets = { state: string; json: string };

/**
 * State versions of one organization as wire objects, with their outputs (one query for all):
 * absolute download links signed now, upload links only when `secrets` are given.
 */
export function renderStateVersions(
  db: DbOrTx,
  signer: StateDownloadLinks,
  origin: string,
  organization: OrganizationRow,
  versions: readonly StateVersionMeta[],
  secrets: UploadSecrets | null = null,
): { items: ResourceObject[]; outputs: Map<string, StateVersionOutputRow[]> } {
  const outputs = outputsOf(
    db,
    // A version whose backing data was deleted keeps its outputs (records, not the state file).
    versions.filter((version) => version.status === 'finalized' || backingDataDeleted(version.status)).map((version) => version.id),
  );
  const items = versions.map((version) => {
    const finalized = version.status === 'finalized';
    const links = {
      download: finalized ? origin + signer.path(version.id, 'state') : null,
      jsonDownload: finalized && version.hasJsonState ? origin + signer.path(version.id, 'json') : null,
      upload: secrets && version.uploadSecret ? origin + uploadPath(version.id, 'state', secrets.state) : null,
      jsonUpload: secrets && version.jsonUploadSecret ? origin + uploadPath(version.id, 'json', secrets.json) : null,
    };
    return stateVersionResource(version, organization, outputs.get(version.id) ?? [], links);
  });
  return { items, outputs };
}
