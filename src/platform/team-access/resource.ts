import type { AccessLevel } from '../auth/workspace-permissions.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { TeamWorkspaceRow } from './repo.js';
import { CUSTOM_DEFAULTS } from './custom.js';

/** The detailed permissions each fixed access level stands for, as the real service spells them. */
const DETAILS: Record<AccessLevel, Record<string, unknown>> = {
  read: {
    runs: 'read',
    variables: 'read',
    'state-versions': 'read',
    'sentinel-mocks': 'none',
    'workspace-locking': false,
    'run-tasks': false,
  },
  plan: {
    runs: 'plan',
    variables: 'read',
    'state-versions': 'read',
    'sentinel-mocks': 'read',
    'workspace-locking': false,
    'run-tasks': false,
  },
  write: {
    runs: 'apply',
    variables: 'write',
    'state-versions': 'write',
    'sentinel-mocks': 'read',
    'workspace-locking': true,
    'run-tasks': false,
  },
  admin: {
    runs: 'apply',
    variables: 'write',
    'state-versions': 'write',
    'sentinel-mocks': 'read',
    'workspace-locking': true,
    'run-tasks': true,
  },
};

export function teamWorkspaceResource(row: TeamWorkspaceRow): ResourceObject {
  return {
    id: row.id,
    type: 'team-workspaces',
    attributes: {
      access: row.access,
      ...(row.access === 'custom' ? { ...CUSTOM_DEFAULTS, ...row.customPermissions } : DETAILS[row.access]),
    },
    relationships: {
      team: { data: { id: row.teamId, type: 'teams' }, links: { related: `/api/v2/teams/${row.teamId}` } },
      workspace: { data: { id: row.workspaceId, type: 'workspaces' }, links: { related: `/api/v2/workspaces/${row.workspaceId}` } },
    },
    links: { self: `/api/v2/team-workspaces/${row.id}` },
  };
}
