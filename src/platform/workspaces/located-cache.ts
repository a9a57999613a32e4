import { perConnection } from '../../store/per-connection.js';
import { deepFreeze, ReadCache } from '../../store/read-cache.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import type { OrganizationRow, TeamRow } from '../auth/principal.js';
import { findWorkspaceByNames, findWorkspaceWithMembership, findWorkspaceWithOrganization, type WorkspaceRow } from './repo.js';

/** What a workspace read by id starts from: the row, its organization, and a user caller's teams there. */
export interface LocatedRead {
  readonly workspace: WorkspaceRow;
  readonly organization: OrganizationRow;
  /** A user's teams in the organization (null: no active membership); undefined for other callers. */
  readonly teamsOfUser?: readonly TeamRow[] | null;
}

/**
 * Every route under `/workspaces/:id` (and the show by organization and name) reads the workspace, its organization and the caller's
 * standing first; kept per connection and caller (store/read-cache.ts), dropped on any write to
 * the tables that read joins.
 */
const locatedCache = perConnection(
  (sqlite) =>
    new ReadCache<LocatedRead>(
      sqlite,
      'workspace_located',
      ['workspaces', 'organizations', 'organization_memberships', 'team_members', 'teams'],
      deepFreeze,
    ),
);

/** `findWorkspaceWithMembership` (with `userId`) or `findWorkspaceWithOrganization`, kept between writes. */
export function locateWorkspace(db: DbOrTx, id: string, userId?: string): LocatedRead | undefined {
  return locatedCache(sqliteOf(db)).get(`id\u0000${userId ?? ''}\u0000${id}`, () =>
    userId === undefined ? findWorkspaceWithOrganization(db, id) : findWorkspaceWithMembership(db, id, userId),
  );
}

/** `findWorkspaceByNames`, kept between writes like `locateWorkspace`. */
export function locateWorkspaceByNames(db: DbOrTx, organizationName: string, name: string, userId?: string): LocatedRead | undefined {
  return locatedCache(sqliteOf(db)).get(`name\u0000${userId ?? ''}\u0000${organizationName}\u0000${name}`, () =>
    findWorkspaceByNames(db, organizationName, name, userId),
  );
}
