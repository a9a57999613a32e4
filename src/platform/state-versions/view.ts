import type { Db, DbOrTx } from '../../store/store.js';
import { backingDataDeleted } from '../backing-data.js';
import type { OrganizationRow } from '../auth/principal.js';
import { IncludeRegistry, type Included } from '../jsonapi/include.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { WorkspaceIncludeLoader, WorkspaceViewParts } from '../workspaces/view.js';
import { uploadPath, type StateDownloadLinks } from './links.js';
import { findStateVersions, outputsOf, type StateVersionMeta, type StateVersionOutputRow } from './repo.js';
import { stateVersionOutputResource, stateVersionResource, workspaceOutputResource } from './resource.js';

/** The one-time upload secrets, known only while answering the create request. */
export type UploadSecrets = { state: string; json: string };

/** What the state-version include loaders get: the outputs the page already loaded, by version id. */
interface StateVersionPage {
  outputs: ReadonlyMap<string, StateVersionOutputRow[]>;
}

/** What a state version document can include (the real API's `created_by` and `run` have nothing to show here). */
export const stateVersionIncludes = new IncludeRegistry<StateVersionPage>({
  outputs: ({ outputs }) => [...outputs.values()].flatMap((own) => own.map((output) => stateVersionOutputResource(output, false))),
});

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

/** A page of state versions and what `wanted` includes, from the same rows. */
export function stateVersionView(
  db: DbOrTx,
  signer: StateDownloadLinks,
  origin: string,
  organization: OrganizationRow,
  versions: readonly StateVersionMeta[],
  wanted: ReadonlySet<string>,
  secrets: UploadSecrets | null = null,
): { items: ResourceObject[]; included: Included } {
  const { items, outputs } = renderStateVersions(db, signer, origin, organization, versions, secrets);
  return { items, included: stateVersionIncludes.collect(wanted, { outputs }) };
}

const currentIds = (page: Parameters<WorkspaceIncludeLoader>[0]) =>
  page.rows.flatMap((row) => (row.currentStateVersionId ? [row.currentStateVersionId] : []));

/** What the state-version domain adds to workspaces: the `outputs` relationship and two includes. */
export function stateVersionWorkspaceParts(
  db: Db,
  links: StateDownloadLinks,
): Pick<WorkspaceViewParts, 'outputIds'> & { includes: Record<'current-state-version' | 'outputs', WorkspaceIncludeLoader> } {
  return {
    outputIds: (ids) => new Map([...outputsOf(db, ids)].map(([id, outputs]) => [id, outputs.map((output) => output.id)])),
    includes: {
      'current-state-version': (page) =>
        renderStateVersions(db, links, page.origin, page.organization, findStateVersions(db, currentIds(page))).items,
      outputs: (page) => [...outputsOf(db, currentIds(page)).values()].flatMap((list) => list.map(workspaceOutputResource)),
    },
  };
}
