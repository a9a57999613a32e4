import { asc, count, desc, eq, and } from 'drizzle-orm';
import type { Db } from '../../store/store.js';
import { mounts, organizations, registryModules, secretLeases, stateVersions, workspaces } from '../../store/tables.js';

/** Rows of each kind the overview shows; the totals say how many there are. */
const SHOWN = 100;

/**
 * The world at a glance, for the inspector page: a read-only look across both APIs that no API
 * answers in one call (and without a caller's permissions), so it reads the tables directly.
 */
export function worldOverview(db: Db, nowMs: number) {
  const current = (workspaceId: string) =>
    db
      .select({ id: stateVersions.id, serial: stateVersions.serial })
      .from(stateVersions)
      .where(and(eq(stateVersions.workspaceId, workspaceId), eq(stateVersions.status, 'finalized')))
      .orderBy(desc(stateVersions.sequence))
      .limit(1)
      .get();
  const workspaceRows = db
    .select({ id: workspaces.id, name: workspaces.name, organization: organizations.name, lockedBy: workspaces.lockedBy })
    .from(workspaces)
    .innerJoin(organizations, eq(organizations.id, workspaces.organizationId))
    .orderBy(asc(organizations.name), asc(workspaces.name))
    .limit(SHOWN)
    .all()
    .map((row) => {
      const version = current(row.id);
      return {
        id: row.id,
        name: row.name,
        organization: row.organization,
        locked: row.lockedBy !== null,
        'current-state-version': version ?? null,
      };
    });
  const total = (table: typeof workspaces | typeof organizations | typeof registryModules | typeof mounts | typeof secretLeases) =>
    db.select({ n: count() }).from(table).get()?.n ?? 0;
  return {
    organizations: {
      total: total(organizations),
      rows: db
        .select({ name: organizations.name, email: organizations.email })
        .from(organizations)
        .orderBy(asc(organizations.name))
        .limit(SHOWN)
        .all(),
    },
    workspaces: { total: total(workspaces), rows: workspaceRows },
    modules: {
      total: total(registryModules),
      rows: db
        .select({
          namespace: registryModules.namespace,
          name: registryModules.name,
          provider: registryModules.provider,
          registry: registryModules.registryName,
          status: registryModules.status,
        })
        .from(registryModules)
        .orderBy(asc(registryModules.namespace), asc(registryModules.name))
        .limit(SHOWN)
        .all(),
    },
    mounts: {
      total: total(mounts),
      rows: db
        .select({ path: mounts.path, type: mounts.type, description: mounts.description })
        .from(mounts)
        .orderBy(asc(mounts.path))
        .limit(SHOWN)
        .all(),
    },
    leases: {
      total: total(secretLeases),
      rows: db
        .select({ id: secretLeases.id, expiresAt: secretLeases.expiresAt, renewable: secretLeases.renewable })
        .from(secretLeases)
        .orderBy(asc(secretLeases.expiresAt))
        .limit(SHOWN)
        .all()
        .map((lease) => ({
          id: lease.id,
          'expires-at': lease.expiresAt.toISOString(),
          'expires-in-seconds': Math.round((lease.expiresAt.getTime() - nowMs) / 1000),
          renewable: lease.renewable,
        })),
    },
  };
}
