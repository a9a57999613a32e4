import { and, asc, count, eq, getTableColumns, isNotNull, or, sql, type SQL } from 'drizzle-orm';
import { prepared } from '../../store/prepared.js';
import { inList } from '../../store/sql-lists.js';
import type { DbOrTx } from '../../store/store.js';
import { gpgKeys, registryProviderPlatforms, registryProviders, registryProviderVersions } from '../../store/tables.js';

export type ProviderRow = typeof registryProviders.$inferSelect;
export type VersionRow = typeof registryProviderVersions.$inferSelect;
export type PlatformRow = typeof registryProviderPlatforms.$inferSelect;
export type GpgKeyRow = typeof gpgKeys.$inferSelect;

/** A version without its uploaded files, with whether each has arrived: what documents and lists need. */
export type VersionSummary = Omit<VersionRow, 'shasums' | 'shasumsSig'> & { shasumsUploaded: boolean; shasumsSigUploaded: boolean };
/** A platform without its zip, with whether it has arrived. */
export type PlatformSummary = Omit<PlatformRow, 'binary'> & { binaryUploaded: boolean };

const { shasums: _sums, shasumsSig: _sig, ...versionColumns } = getTableColumns(registryProviderVersions);
const versionSummary = {
  ...versionColumns,
  shasumsUploaded: sql<boolean>`${registryProviderVersions.shasums} IS NOT NULL`.mapWith(Boolean),
  shasumsSigUploaded: sql<boolean>`${registryProviderVersions.shasumsSig} IS NOT NULL`.mapWith(Boolean),
};
const { binary: _binary, ...platformColumns } = getTableColumns(registryProviderPlatforms);
const platformSummary = {
  ...platformColumns,
  binaryUploaded: sql<boolean>`${registryProviderPlatforms.binary} IS NOT NULL`.mapWith(Boolean),
};

export interface ProviderAddress {
  organizationId: string;
  registryName: string;
  namespace: string;
  name: string;
}

export interface ProviderFilter {
  registryName?: string;
  q?: string;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
const byName = [asc(registryProviders.name), asc(registryProviders.id)];

function providerWhere(organizationId: string, filter: ProviderFilter): SQL | undefined {
  const pattern = filter.q ? `%${escapeLike(filter.q)}%` : undefined;
  return and(
    eq(registryProviders.organizationId, organizationId),
    filter.registryName ? eq(registryProviders.registryName, filter.registryName) : undefined,
    pattern
      ? or(sql`${registryProviders.name} LIKE ${pattern} ESCAPE '\\'`, sql`${registryProviders.namespace} LIKE ${pattern} ESCAPE '\\'`)
      : undefined,
  );
}

export function listProviders(
  db: DbOrTx,
  organizationId: string,
  filter: ProviderFilter,
  offset: number,
  limit: number,
): { rows: ProviderRow[]; total: number } {
  const where = providerWhere(organizationId, filter);
  const rows = db
    .select()
    .from(registryProviders)
    .where(where)
    .orderBy(...byName)
    .limit(limit)
    .offset(offset)
    .all();
  const total = db.select({ n: count() }).from(registryProviders).where(where).get()?.n ?? 0;
  return { rows, total };
}

const providerAt = prepared((db) =>
  db
    .select()
    .from(registryProviders)
    .where(
      and(
        eq(registryProviders.organizationId, sql.placeholder('organizationId')),
        eq(registryProviders.registryName, sql.placeholder('registryName')),
        eq(registryProviders.namespace, sql.placeholder('namespace')),
        eq(registryProviders.name, sql.placeholder('name')),
      ),
    )
    .prepare(),
);

export function findProvider(db: DbOrTx, address: ProviderAddress): ProviderRow | undefined {
  return providerAt(db).get({ ...address });
}

export function findProviderById(db: DbOrTx, id: string): ProviderRow | undefined {
  return db.select().from(registryProviders).where(eq(registryProviders.id, id)).get();
}

export function insertProvider(db: DbOrTx, row: ProviderRow): void {
  db.insert(registryProviders).values(row).run();
}

export function touchProvider(db: DbOrTx, id: string, at: Date): void {
  db.update(registryProviders).set({ updatedAt: at }).where(eq(registryProviders.id, id)).run();
}

/** Versions and platforms go with it (foreign key cascade). */
export function deleteProvider(db: DbOrTx, id: string): void {
  db.delete(registryProviders).where(eq(registryProviders.id, id)).run();
}

export function versionsOf(db: DbOrTx, providerIds: string[]): VersionSummary[] {
  if (providerIds.length === 0) return [];
  return db
    .select(versionSummary)
    .from(registryProviderVersions)
    .where(inList(registryProviderVersions.providerId, providerIds))
    .orderBy(asc(registryProviderVersions.createdAt), asc(registryProviderVersions.id))
    .all();
}

export function countVersions(db: DbOrTx, providerId: string): number {
  return db.select({ n: count() }).from(registryProviderVersions).where(eq(registryProviderVersions.providerId, providerId)).get()?.n ?? 0;
}

export function pageOfVersions(db: DbOrTx, providerId: string, offset: number, limit: number): VersionSummary[] {
  return db
    .select(versionSummary)
    .from(registryProviderVersions)
    .where(eq(registryProviderVersions.providerId, providerId))
    .orderBy(asc(registryProviderVersions.createdAt), asc(registryProviderVersions.id))
    .limit(limit)
    .offset(offset)
    .all();
}

export function findVersion(db: DbOrTx, providerId: string, version: string): VersionSummary | undefined {
  return db
    .select(versionSummary)
    .from(registryProviderVersions)
    .where(and(eq(registryProviderVersions.providerId, providerId), eq(registryProviderVersions.version, version)))
    .get();
}

export function findVersionById(db: DbOrTx, id: string): VersionSummary | undefined {
  return db.select(versionSummary).from(registryProviderVersions).where(eq(registryProviderVersions.id, id)).get();
}

export function insertVersion(db: DbOrTx, row: Omit<VersionRow, 'shasums' | 'shasumsSig'>): void {
  db.insert(registryProviderVersions).values(row).run();
}

export function deleteVersion(db: DbOrTx, id: string): void {
  db.delete(registryProviderVersions).where(eq(registryProviderVersions.id, id)).run();
}

export type VersionFile = 'shasums' | 'shasumsSig';

/** The version whose upload link of `file` has this digest. */
export function findVersionByUpload(db: DbOrTx, file: VersionFile, uploadId: string): VersionSummary | undefined {
  const column = file === 'shasums' ? registryProviderVersions.shasumsUploadId : registryProviderVersions.shasumsSigUploadId;
  return db.select(versionSummary).from(registryProviderVersions).where(eq(column, uploadId)).get();
}

export function storeVersionFile(db: DbOrTx, id: string, file: VersionFile, content: Buffer, at: Date): void {
  db.update(registryProviderVersions)
    .set({ [file]: content, updatedAt: at })
    .where(eq(registryProviderVersions.id, id))
    .run();
}

export function versionFile(db: DbOrTx, id: string, file: VersionFile): Buffer | null {
  const column = file === 'shasums' ? registryProviderVersions.shasums : registryProviderVersions.shasumsSig;
  return db.select({ content: column }).from(registryProviderVersions).where(eq(registryProviderVersions.id, id)).get()?.content ?? null;
}

export function platformsOf(db: DbOrTx, versionIds: string[]): PlatformSummary[] {
  if (versionIds.length === 0) return [];
  return db
    .select(platformSummary)
    .from(registryProviderPlatforms)
    .where(inList(registryProviderPlatforms.versionId, versionIds))
    .orderBy(asc(registryProviderPlatforms.os), asc(registryProviderPlatforms.arch))
    .all();
}

export function findPlatform(db: DbOrTx, versionId: string, os: string, arch: string): PlatformSummary | undefined {
  return db
    .select(platformSummary)
    .from(registryProviderPlatforms)
    .where(
      and(
        eq(registryProviderPlatforms.versionId, versionId),
        eq(registryProviderPlatforms.os, os),
        eq(registryProviderPlatforms.arch, arch),
      ),
    )
    .get();
}

export function findPlatformById(db: DbOrTx, id: string): PlatformSummary | undefined {
  return db.select(platformSummary).from(registryProviderPlatforms).where(eq(registryProviderPlatforms.id, id)).get();
}

export function findPlatformByUpload(db: DbOrTx, uploadId: string): PlatformSummary | undefined {
  return db.select(platformSummary).from(registryProviderPlatforms).where(eq(registryProviderPlatforms.binaryUploadId, uploadId)).get();
}

export function insertPlatform(db: DbOrTx, row: Omit<PlatformRow, 'binary'>): void {
  db.insert(registryProviderPlatforms).values(row).run();
}

export function deletePlatform(db: DbOrTx, id: string): void {
  db.delete(registryProviderPlatforms).where(eq(registryProviderPlatforms.id, id)).run();
}

export function storeBinary(db: DbOrTx, id: string, binary: Buffer, at: Date): void {
  db.update(registryProviderPlatforms).set({ binary, updatedAt: at }).where(eq(registryProviderPlatforms.id, id)).run();
}

export function binaryOf(db: DbOrTx, id: string): Buffer | null {
  return (
    db
      .select({ binary: registryProviderPlatforms.binary })
      .from(registryProviderPlatforms)
      .where(eq(registryProviderPlatforms.id, id))
      .get()?.binary ?? null
  );
}

// The registry protocol's hot reads: a provider's installable versions and their platforms.
const installableVersions = prepared((db) =>
  db
    .select({ id: registryProviderVersions.id, version: registryProviderVersions.version, protocols: registryProviderVersions.protocols })
    .from(registryProviderVersions)
    .where(
      and(
        eq(registryProviderVersions.providerId, sql.placeholder('providerId')),
        isNotNull(registryProviderVersions.shasums),
        isNotNull(registryProviderVersions.shasumsSig),
      ),
    )
    .prepare(),
);
const installablePlatforms = prepared((db) =>
  db
    .select({ versionId: registryProviderPlatforms.versionId, os: registryProviderPlatforms.os, arch: registryProviderPlatforms.arch })
    .from(registryProviderPlatforms)
    .innerJoin(registryProviderVersions, eq(registryProviderVersions.id, registryProviderPlatforms.versionId))
    .where(and(eq(registryProviderVersions.providerId, sql.placeholder('providerId')), isNotNull(registryProviderPlatforms.binary)))
    .prepare(),
);

/** Versions whose sums and signature have arrived, with the platforms whose zip has. */
export function installable(db: DbOrTx, providerId: string) {
  return {
    versions: installableVersions(db).all({ providerId }),
    platforms: installablePlatforms(db).all({ providerId }),
  };
}

export function listGpgKeys(db: DbOrTx, organizationIds: string[], offset: number, limit: number): { rows: GpgKeyRow[]; total: number } {
  if (organizationIds.length === 0) return { rows: [], total: 0 };
  const where = inList(gpgKeys.organizationId, organizationIds);
  const rows = db.select().from(gpgKeys).where(where).orderBy(asc(gpgKeys.createdAt), asc(gpgKeys.id)).limit(limit).offset(offset).all();
  return { rows, total: db.select({ n: count() }).from(gpgKeys).where(where).get()?.n ?? 0 };
}

export function findGpgKey(db: DbOrTx, organizationId: string, keyId: string): GpgKeyRow | undefined {
  return db
    .select()
    .from(gpgKeys)
    .where(and(eq(gpgKeys.organizationId, organizationId), eq(gpgKeys.keyId, keyId.toUpperCase())))
    .get();
}

export function insertGpgKey(db: DbOrTx, row: GpgKeyRow): void {
  db.insert(gpgKeys).values(row).run();
}

export function moveGpgKey(db: DbOrTx, id: string, organizationId: string, at: Date): void {
  db.update(gpgKeys).set({ organizationId, updatedAt: at }).where(eq(gpgKeys.id, id)).run();
}

export function deleteGpgKey(db: DbOrTx, id: string): void {
  db.delete(gpgKeys).where(eq(gpgKeys.id, id)).run();
}
