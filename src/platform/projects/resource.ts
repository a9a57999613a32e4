import { isoTimestamp } from '../../core/clock.js';
import type { OrganizationPermission } from '../auth/permissions.js';
import type { ProjectPermission } from '../auth/project-permissions.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { ProjectRow } from './repo.js';

/** What a full rendering knows beyond the row: the caller's project rights and the project's counts. */
export interface ProjectDetails {
  rights: ReadonlySet<ProjectPermission>;
  workspaceCount: number;
  teamCount: number;
}

/**
 * The `projects` resource; `permissions` are the caller's: from `details` when given (team project
 * access included), otherwise from the organization grants alone (includes elsewhere).
 */
export function projectResource(
  project: ProjectRow,
  organizationName: string,
  grants: ReadonlySet<OrganizationPermission>,
  details?: ProjectDetails,
): ResourceObject {
  const manage = grants.has('manage-projects');
  const may = (right: ProjectPermission, fallback: boolean) => (details ? details.rights.has(right) : fallback);
  return {
    id: project.id,
    type: 'projects',
    attributes: {
      name: project.name,
      description: project.description ?? '',
      'created-at': isoTimestamp(project.createdAt),
      'updated-at': isoTimestamp(project.updatedAt),
      'is-unified': false,
      'auto-destroy-activity-duration': project.autoDestroyActivityDuration,
      ...(details ? { 'workspace-count': details.workspaceCount, 'team-count': details.teamCount } : {}),
      permissions: {
        'can-read': true,
        'can-update': may('update', manage),
        'can-destroy': may('destroy', manage) && !project.isDefault,
        'can-create-workspace': may('create-workspace', grants.has('manage-workspaces')),
        'can-move-workspace': may('move-workspace', grants.has('manage-workspaces')),
        'can-create-team': false,
        'can-read-teams': may('read-teams', manage),
        'can-update-team': may('manage-teams', manage),
      },
    },
    relationships: {
      organization: { data: { id: organizationName, type: 'organizations' } },
    },
    links: { self: `/api/v2/projects/${project.id}` },
  };
}
