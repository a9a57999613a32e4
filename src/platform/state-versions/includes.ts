import type { Clock } from '../../core/clock.js';
import type { Db } from '../../store/store.js';
import type { WorkspaceIncludeLoader, WorkspaceViewParts } from '../workspaces/view.js';
import { findStateVersions, outputsOf } from './repo.js';
import { renderStateVersions } from './render.js';
import { workspaceOutputResource } from './resource.js';

const currentIds = (page: Parameters<WorkspaceIncludeLoader>[0]) =>
  page.rows.flatMap((row) => (row.currentStateVersionId ? [row.currentStateVersionId] : []));

/** What the state-version domain adds to workspaces: the `outputs` relationship and two includes. */
export function stateVersionWorkspaceParts(
  db: Db,
  clock: Clock,
): Pick<WorkspaceViewParts, 'outputIds'> & { includes: Record<'current-state-version' | 'outputs', WorkspaceIncludeLoader> } {
  return {
    outputIds: (ids) => new Map([...outputsOf(db, ids)].map(([id, outputs]) => [id, outputs.map((output) => output.id)])),
    includes: {
      'current-state-version': (page) =>
        renderStateVersions(db, clock, page.origin, page.organization, findStateVersions(db, currentIds(page))).items,
      outputs: (page) => [...outputsOf(db, currentIds(page)).values()].flatMap((list) => list.map(workspaceOutputResource)),
    },
  };
}
