import type { Db } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { organizationResource } from '../organizations/resource.js';
import { findTeam } from '../teams/repo.js';
import { teamResource } from '../teams/resource.js';
import type { TeamService } from '../teams/service.js';
import { findUserById } from '../users/repo.js';
import { userResource } from '../users/resource.js';
import { organizationServiceAccount } from '../users/service.js';
import type { WorkspaceIncludeLoader, WorkspacePage } from './view.js';

/** The includes the workspace domain owns itself: its organization and who holds its lock. */
export function workspaceOwnIncludes(db: Db, teams: TeamService): Record<'organization' | 'locked_by', WorkspaceIncludeLoader> {
  return {
    organization: ({ principal, organization }) => [
      organizationResource(organization, new Permissions(db).organization(principal, organization)),
    ],
    locked_by: ({ principal, organization, rows }: WorkspacePage) => {
      const found: ResourceObject[] = [];
      for (const { lockedBy } of rows) {
        if (lockedBy?.kind === 'user') {
          const user = findUserById(db, lockedBy.id);
          if (user) found.push(userResource(user));
        } else if (lockedBy?.kind === 'organization') {
          found.push(userResource(organizationServiceAccount(organization)));
        } else if (lockedBy?.kind === 'team') {
          const team = findTeam(db, lockedBy.id);
          const grants = new Permissions(db).grants(principal, organization);
          if (team) found.push(...teams.views({ organization, grants }, [team]).map(teamResource));
        }
      }
      return found;
    },
  };
}
