import { and, eq, inArray, sql } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { secretEntries } from '../../store/tables.js';
import { prepared } from '../../store/prepared.js';

/** Reads are the hot path of every engine, so the statement is built once. */
const entryByKey = prepared((db) =>
  db
    .select({ value: secretEntries.value })
    .from(secretEntries)
    .where(and(eq(secretEntries.mountUuid, sql.placeholder('mount')), eq(secretEntries.key, sql.placeholder('key'))))
    .prepare(),
);

/**
 * A mount's private key/value view (the secrets API's "logical storage"): engines see only keys
 * under their own mount, so two mounts of one engine never share data.
 */
export class MountStorage {
  constructor(
    private readonly db: DbOrTx,
    private readonly mountUuid: string,
  ) {}

  get<T>(key: string): T | undefined {
    const row = entryByKey(this.db).get({ mount: this.mountUuid, key });
    return row?.value as T | undefined;
  }

  put(key: string, value: unknown): void {
    this.db
      .insert(secretEntries)
      .values({ mountUuid: this.mountUuid, key, value })
      .onConflictDoUpdate({ target: [secretEntries.mountUuid, secretEntries.key], set: { value } })
      .run();
  }

  delete(key: string): void {
    this.db
      .delete(secretEntries)
      .where(and(eq(secretEntries.mountUuid, this.mountUuid), eq(secretEntries.key, key)))
      .run();
  }

  /**
   * Keys starting with `prefix`, exactly. SQLite's LIKE narrows the scan but ignores ASCII case,
   * and two tokens' cubbyholes differ only by accessor, so the final test is done here.
   */
  private keysWithPrefix(prefix: string): string[] {
    const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    return this.db
      .select({ key: secretEntries.key })
      .from(secretEntries)
      .where(and(eq(secretEntries.mountUuid, this.mountUuid), sql`${secretEntries.key} LIKE ${pattern} ESCAPE '\\'`))
      .all()
      .map((row) => row.key)
      .filter((key) => key.startsWith(prefix));
  }

  /** Direct children of `prefix` (which ends in `/` or is empty), sorted; folders end in `/`. */
  list(prefix: string): string[] {
    const children = new Set<string>();
    for (const key of this.keysWithPrefix(prefix)) {
      const rest = key.slice(prefix.length);
      const slash = rest.indexOf('/');
      children.add(slash === -1 ? rest : rest.slice(0, slash + 1));
    }
    return [...children].filter((child) => child !== '').sort();
  }

  /** Removes every key under `prefix` (a token's cubbyhole when the token goes). */
  deletePrefix(prefix: string): void {
    const keys = this.keysWithPrefix(prefix);
    if (keys.length > 0)
      this.db
        .delete(secretEntries)
        .where(and(eq(secretEntries.mountUuid, this.mountUuid), inArray(secretEntries.key, keys)))
        .run();
  }

  /** Removes everything the mount stored (disabling a mount). */
  clear(): void {
    this.db.delete(secretEntries).where(eq(secretEntries.mountUuid, this.mountUuid)).run();
  }
}
