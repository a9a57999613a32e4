import { isoTimestamp } from '../../core/clock.js';
import type { OrganizationPermission } from '../auth/permissions.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { ProjectRow } from './repo.js';

/** The `projects` resource; `permissions` are the caller's, from the organization grants. */
export function projectResource(
  project: ProjectRow,
  organizationName: string,
  grants: ReadonlySet<OrganizationPermission>,
  /** Ids of the project's tag bindings, when the caller loaded them (projects inherit none: both lists match). */
  tagBindingIds?: readonly string[],
): ResourceObject {
  const manage = grants.has('manage-projects');
  return {
    id: project.id,
    type: 'projects',
    attributes: {
      name: project.name,
      description: project.description ?? '',
      'created-at': isoTimestamp(project.createdAt),
      'updated-at': isoTimestamp(project.updatedAt),
      'is-unified': false,
      'auto-destroy-activity-duration': null,
      permissions: {
        'can-read': true,
        'can-update': manage,
        'can-destroy': manage && !project.isDefault,
        'can-create-workspace': grants.has('manage-workspaces'),
        'can-move-workspace': grants.has('manage-workspaces'),
      },
    },
    relationships: {
      organization: { data: { id: organizationName, type: 'organizations' } },
      ...(tagBindingIds
        ? {
            'tag-bindings': {
              data: tagBindingIds.map((id) => ({ id, type: 'tag-bindings' })),
              links: { related: `/api/v2/projects/${project.id}/tag-bindings` },
            },
            'effective-tag-bindings': {
              data: tagBindingIds.map((id) => ({ id, type: 'effective-tag-bindings' })),
              links: { related: `/api/v2/projects/${project.id}/effective-tag-bindings` },
            },
          }
        : {}),
    },
    links: { self: `/api/v2/projects/${project.id}` },
  };
}
