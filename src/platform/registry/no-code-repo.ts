import { eq } from 'drizzle-orm';
import { newId } from '../../core/ids.js';
import { inList } from '../../store/sql-lists.js';
import type { DbOrTx } from '../../store/store.js';
import { noCodeModules, registryModules } from '../../store/tables.js';

export type NoCodeRow = typeof noCodeModules.$inferSelect;

export function findNoCode(db: DbOrTx, id: string): NoCodeRow | undefined {
  return db.select().from(noCodeModules).where(eq(noCodeModules.id, id)).get();
}

/** The no-code modules of these registry modules (at most one each). */
export function noCodeOf(db: DbOrTx, moduleIds: readonly string[]): NoCodeRow[] {
  if (moduleIds.length === 0) return [];
  return db
    .select()
    .from(noCodeModules)
    .where(inList(noCodeModules.moduleId, [...moduleIds]))
    .all();
}

/** Writes the row and mirrors whether it is enabled onto its module's `no_code`. */
export function insertNoCode(db: DbOrTx, row: NoCodeRow): void {
  db.insert(noCodeModules).values(row).run();
  db.update(registryModules).set({ noCode: row.enabled }).where(eq(registryModules.id, row.moduleId)).run();
}

export function updateNoCode(
  db: DbOrTx,
  row: NoCodeRow,
  changes: Partial<Pick<NoCodeRow, 'enabled' | 'versionPin' | 'variableOptions' | 'updatedAt'>>,
): void {
  db.update(noCodeModules).set(changes).where(eq(noCodeModules.id, row.id)).run();
  if (changes.enabled !== undefined) {
    db.update(registryModules).set({ noCode: changes.enabled }).where(eq(registryModules.id, row.moduleId)).run();
  }
}

export function deleteNoCode(db: DbOrTx, row: NoCodeRow): void {
  db.delete(noCodeModules).where(eq(noCodeModules.id, row.id)).run();
  db.update(registryModules).set({ noCode: false }).where(eq(registryModules.id, row.moduleId)).run();
}

/** A new no-code module row for `module` (enabled, latest version, no variable options unless given). */
export function newNoCodeRow(
  module: { id: string; organizationId: string },
  at: Date,
  input: Partial<Pick<NoCodeRow, 'enabled' | 'versionPin' | 'variableOptions'>> = {},
): NoCodeRow {
  return {
    id: newId('nocode'),
    organizationId: module.organizationId,
    moduleId: module.id,
    enabled: input.enabled ?? true,
    versionPin: input.versionPin ?? '',
    variableOptions: input.variableOptions ?? [],
    createdAt: at,
    updatedAt: at,
  };
}
