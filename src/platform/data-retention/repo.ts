import { and, asc, eq, isNotNull, ne, or } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import type { DbOrTx } from '../../store/store.js';
import { configurationVersions, organizations, stateVersions, workspaces, type StoredRetentionPolicy } from '../../store/tables.js';

/** A workspace with a policy of its own or from its organization, and what must never lose its backing data. */
export interface RetainedWorkspace {
  id: string;
  currentStateVersionId: string | null;
  currentConfigurationVersionId: string | null;
  own: StoredRetentionPolicy | null;
  inherited: StoredRetentionPolicy | null;
}

const RETAINED = {
  id: workspaces.id,
  currentStateVersionId: workspaces.currentStateVersionId,
  currentConfigurationVersionId: workspaces.currentConfigurationVersionId,
  own: workspaces.dataRetentionPolicy,
  inherited: organizations.dataRetentionPolicy,
};

const retained = (db: DbOrTx) =>
  db.select(RETAINED).from(workspaces).innerJoin(organizations, eq(workspaces.organizationId, organizations.id)).$dynamic();

/**
 * Every workspace under some policy (its own or its organization's). The organizations with a
 * policy are looked up once, as a list, rather than joined to each workspace before the test: the
 * sweep scans every workspace after each restore, and the join took half of that scan.
 */
export function workspacesUnderPolicy(db: DbOrTx): RetainedWorkspace[] {
  const organizationsUnderPolicy = db
    .select({ id: organizations.id })
    .from(organizations)
    .where(isNotNull(organizations.dataRetentionPolicy));
  return retained(db)
    .where(or(isNotNull(workspaces.dataRetentionPolicy), inList(workspaces.organizationId, organizationsUnderPolicy)))
    .all();
}

export function workspaceUnderPolicy(db: DbOrTx, id: string): RetainedWorkspace | undefined {
  return retained(db).where(eq(workspaces.id, id)).get();
}

/** The workspace's oldest finalized state version other than `currentId`. */
export function oldestFinalizedStateVersion(db: DbOrTx, workspaceId: string, currentId: string | null) {
  const where = and(
    eq(stateVersions.workspaceId, workspaceId),
    eq(stateVersions.status, 'finalized'),
    currentId === null ? undefined : ne(stateVersions.id, currentId),
  );
  return db
    .select({ id: stateVersions.id, createdAt: stateVersions.createdAt })
    .from(stateVersions)
    .where(where)
    .orderBy(asc(stateVersions.sequence))
    .limit(1)
    .get();
}

/** The workspace's uploaded configuration versions, oldest first, at most `limit`. */
export function oldestUploadedConfigurationVersions(db: DbOrTx, workspaceId: string, limit: number) {
  return db
    .select({ id: configurationVersions.id, createdAt: configurationVersions.createdAt })
    .from(configurationVersions)
    .where(and(eq(configurationVersions.workspaceId, workspaceId), eq(configurationVersions.status, 'uploaded')))
    .orderBy(asc(configurationVersions.createdAt), asc(configurationVersions.id))
    .limit(limit)
    .all();
}
