import { and, asc, count, eq, getTableColumns, or, sql, type SQL } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import { prepared } from '../../store/prepared.js';
import type { DbOrTx } from '../../store/store.js';
import { registryModules, registryModuleVersions, type ModuleDetails } from '../../store/tables.js';
import type { RegistryName } from './rules.js';

export type ModuleRow = typeof registryModules.$inferSelect;
export type VersionRow = typeof registryModuleVersions.$inferSelect;
/** A version without its archive and parsed details: what lists and documents need. */
export type VersionSummary = Omit<VersionRow, 'archive' | 'details'>;

// Lists never read the archive blobs nor the details JSON (a module may have hundreds of versions).
const { archive: _archive, details: _details, ...summaryColumns } = getTableColumns(registryModuleVersions);

export interface ModuleAddress {
  organizationId: string;
  registryName: string;
  namespace: string;
  name: string;
  provider?: string;
}

export interface ModuleFilter {
  organizationIds: string[] | 'all';
  q?: string;
  registryName?: string;
  provider?: string;
  namespace?: string;
  name?: string;
  /** Only modules with at least one `ok` version (the registry protocol shows nothing else). */
  withOkVersion?: boolean;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function filterWhere(filter: ModuleFilter): SQL | undefined {
  const parts: (SQL | undefined)[] = [];
  if (filter.organizationIds !== 'all') parts.push(inList(registryModules.organizationId, filter.organizationIds));
  if (filter.registryName) parts.push(eq(registryModules.registryName, filter.registryName));
  if (filter.provider) parts.push(eq(registryModules.provider, filter.provider));
  if (filter.namespace) parts.push(eq(registryModules.namespace, filter.namespace));
  if (filter.name) parts.push(eq(registryModules.name, filter.name));
  if (filter.q) {
    const pattern = `%${escapeLike(filter.q)}%`;
    parts.push(
      or(
        sql`${registryModules.name} LIKE ${pattern} ESCAPE '\\'`,
        sql`${registryModules.namespace} LIKE ${pattern} ESCAPE '\\'`,
        sql`${registryModules.provider} LIKE ${pattern} ESCAPE '\\'`,
      ),
    );
  }
  if (filter.withOkVersion) {
    parts.push(
      sql`EXISTS (SELECT 1 FROM ${registryModuleVersions}
        WHERE ${registryModuleVersions.moduleId} = ${registryModules.id} AND ${registryModuleVersions.status} = 'ok')`,
    );
  }
  return and(...parts);
}

const byName = [asc(registryModules.name), asc(registryModules.id)];

// An organization's whole list (no q, no filter) is the hot path: built and prepared once.
const organizationPage = prepared((db) =>
  db
    .select()
    .from(registryModules)
    .where(
      inList(
        registryModules.id,
        db
          .select({ id: registryModules.id })
          .from(registryModules)
          .where(eq(registryModules.organizationId, sql.placeholder('organizationId')))
          .orderBy(...byName)
          .limit(sql.placeholder('limit'))
          .offset(sql.placeholder('offset')),
      ),
    )
    .orderBy(...byName)
    .prepare(),
);
const organizationCount = prepared((db) =>
  db
    .select({ n: count() })
    .from(registryModules)
    .where(eq(registryModules.organizationId, sql.placeholder('organizationId')))
    .prepare(),
);

export function listModules(db: DbOrTx, filter: ModuleFilter, offset: number, limit: number): { rows: ModuleRow[]; total: number } {
  const { organizationIds, ...rest } = filter;
  if (organizationIds !== 'all' && organizationIds.length === 1 && Object.values(rest).every((value) => !value)) {
    const organizationId = organizationIds[0]!;
    return {
      rows: organizationPage(db).all({ organizationId, limit, offset }),
      total: organizationCount(db).get({ organizationId })?.n ?? 0,
    };
  }
  const where = filterWhere(filter);
  // The page's ids come from the (organization, name, id) index alone, so a deep page skips index
  // entries rather than whole rows; only the page's rows are read from the table.
  const pageIds = db
    .select({ id: registryModules.id })
    .from(registryModules)
    .where(where)
    .orderBy(asc(registryModules.name), asc(registryModules.id))
    .limit(limit)
    .offset(offset);
  const rows = db
    .select()
    .from(registryModules)
    .where(inList(registryModules.id, pageIds))
    .orderBy(asc(registryModules.name), asc(registryModules.id))
    .all();
  const total = db.select({ n: count() }).from(registryModules).where(where).get()?.n ?? 0;
  return { rows, total };
}

export function findModuleById(db: DbOrTx, id: string): ModuleRow | undefined {
  return db.select().from(registryModules).where(eq(registryModules.id, id)).get();
}

const moduleAt = prepared((db) =>
  db
    .select()
    .from(registryModules)
    .where(
      and(
        eq(registryModules.organizationId, sql.placeholder('organizationId')),
        eq(registryModules.registryName, sql.placeholder('registryName')),
        eq(registryModules.namespace, sql.placeholder('namespace')),
        eq(registryModules.name, sql.placeholder('name')),
        eq(registryModules.provider, sql.placeholder('provider')),
      ),
    )
    .prepare(),
);

/** Modules at an address; without `provider`, every provider of the name. */
export function findModules(db: DbOrTx, address: ModuleAddress): ModuleRow[] {
  if (address.provider !== undefined) return moduleAt(db).all({ ...address });
  return db
    .select()
    .from(registryModules)
    .where(
      and(
        eq(registryModules.organizationId, address.organizationId),
        eq(registryModules.registryName, address.registryName),
        eq(registryModules.namespace, address.namespace),
        eq(registryModules.name, address.name),
        address.provider === undefined ? undefined : eq(registryModules.provider, address.provider),
      ),
    )
    .orderBy(asc(registryModules.provider))
    .all();
}

/** The organization's modules of this name: private ones and curated public records of any namespace. */
export function findModulesNamed(db: DbOrTx, organizationId: string, name: string, registryNames: readonly RegistryName[]): ModuleRow[] {
  return db
    .select()
    .from(registryModules)
    .where(
      and(
        eq(registryModules.organizationId, organizationId),
        eq(registryModules.name, name),
        inList(registryModules.registryName, [...registryNames]),
      ),
    )
    .all();
}

export function insertModule(db: DbOrTx, row: ModuleRow): void {
  db.insert(registryModules).values(row).run();
}

export function updateModule(db: DbOrTx, id: string, changes: Partial<Pick<ModuleRow, 'status' | 'updatedAt' | 'vcsRepo'>>): void {
  db.update(registryModules).set(changes).where(eq(registryModules.id, id)).run();
}

/** Versions go with it (foreign key cascade). */
export function deleteModule(db: DbOrTx, id: string): void {
  db.delete(registryModules).where(eq(registryModules.id, id)).run();
}

// One module's versions: read on every registry protocol request.
const versionsOfOne = prepared((db) =>
  db
    .select(summaryColumns)
    .from(registryModuleVersions)
    .where(eq(registryModuleVersions.moduleId, sql.placeholder('moduleId')))
    .prepare(),
);

export function versionsOf(db: DbOrTx, moduleIds: string[]): VersionSummary[] {
  if (moduleIds.length === 0) return [];
  if (moduleIds.length === 1) return versionsOfOne(db).all({ moduleId: moduleIds[0] });
  return db.select(summaryColumns).from(registryModuleVersions).where(inList(registryModuleVersions.moduleId, moduleIds)).all();
}

/** Parsed details of the given versions (those that have them). */
export function detailsOf(db: DbOrTx, versionIds: string[]): Map<string, ModuleDetails> {
  if (versionIds.length === 0) return new Map();
  const rows = db
    .select({ id: registryModuleVersions.id, details: registryModuleVersions.details })
    .from(registryModuleVersions)
    .where(inList(registryModuleVersions.id, versionIds))
    .all();
  return new Map(rows.flatMap((row) => (row.details ? [[row.id, row.details] as const] : [])));
}

export function findVersion(db: DbOrTx, moduleId: string, version: string): VersionSummary | undefined {
  return db
    .select(summaryColumns)
    .from(registryModuleVersions)
    .where(and(eq(registryModuleVersions.moduleId, moduleId), eq(registryModuleVersions.version, version)))
    .get();
}

export function findVersionById(db: DbOrTx, id: string): VersionSummary | undefined {
  return db.select(summaryColumns).from(registryModuleVersions).where(eq(registryModuleVersions.id, id)).get();
}

export function findVersionByUpload(db: DbOrTx, uploadId: string): VersionSummary | undefined {
  return db.select(summaryColumns).from(registryModuleVersions).where(eq(registryModuleVersions.uploadId, uploadId)).get();
}

export function archiveOf(db: DbOrTx, versionId: string): Buffer | null {
  return (
    db
      .select({ archive: registryModuleVersions.archive })
      .from(registryModuleVersions)
      .where(eq(registryModuleVersions.id, versionId))
      .get()?.archive ?? null
  );
}

export function insertVersion(db: DbOrTx, row: VersionRow): void {
  db.insert(registryModuleVersions).values(row).run();
}

export function updateVersion(
  db: DbOrTx,
  id: string,
  changes: Partial<Pick<VersionRow, 'status' | 'details' | 'archive' | 'updatedAt'>>,
): void {
  db.update(registryModuleVersions).set(changes).where(eq(registryModuleVersions.id, id)).run();
}

export function deleteVersion(db: DbOrTx, id: string): void {
  db.delete(registryModuleVersions).where(eq(registryModuleVersions.id, id)).run();
}

export function countVersions(db: DbOrTx, moduleId: string): number {
  return db.select({ n: count() }).from(registryModuleVersions).where(eq(registryModuleVersions.moduleId, moduleId)).get()?.n ?? 0;
}
