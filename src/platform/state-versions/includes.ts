import type { Db } from '../../store/store.js';
import type { WorkspaceIncludeLoader, WorkspaceViewParts } from '../workspaces/view.js';
import { findStateVersions, outputsOf } from './repo.js';
import type { StateDownloadLinks } from './links.js';
import { renderStateVersions } from './render.js';
import { workspaceOutputResource } from './resource.js';

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
