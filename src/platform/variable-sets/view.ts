import type { Db } from '../../store/store.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { findOrganizationById } from '../organizations/repo.js';
import type { VariableSetRow } from './precedence.js';
import { membersOf, type SetVariableRow } from './repo.js';
import { variableSetResource } from './resource.js';

/** Variable sets as wire objects, their members read for the whole page at once. */
export class VariableSetViews {
  constructor(private readonly db: Db) {}

  render(sets: readonly VariableSetRow[]): ResourceObject[] {
    const members = membersOf(
      this.db,
      sets.map((set) => set.id),
    );
    return sets.map((set) =>
      variableSetResource(set, findOrganizationById(this.db, set.organizationId)?.name ?? '', {
        workspaceIds: members.workspaces.get(set.id)?.map((row) => row.workspaceId) ?? [],
        projectIds: members.projects.get(set.id)?.map((row) => row.projectId) ?? [],
        variableIds: members.variables.get(set.id)?.map((row) => row.id) ?? [],
      }),
    );
  }

  /** The variables of one set, in their stored order. */
  variables(setId: string): SetVariableRow[] {
    return membersOf(this.db, [setId]).variables.get(setId) ?? [];
  }
}
