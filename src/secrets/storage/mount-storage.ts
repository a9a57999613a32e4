import { and, eq, like } from 'drizzle-orm';
import type { DbOrTx } from '../../store/store.js';
import { secretEntries } from '../../store/tables.js';

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
    const row = this.db
      .select({ value: secretEntries.value })
      .from(secretEntries)
      .where(and(eq(secretEntries.mountUuid, this.mountUuid), eq(secretEntries.key, key)))
      .get();
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
    this.db.delete(secretEntries).where(and(eq(secretEntries.mountUuid, this.mountUuid), eq(secretEntries.key, key))).run();
  }

  /** Direct children of `prefix` (which ends in `/` or is empty), sorted; folders end in `/`. */
  list(prefix: string): string[] {
    const escaped = prefix.replace(/[\\%_]/g, (c) => `\\${c}`);
    const rows = this.db
      .select({ key: secretEntries.key })
      .from(secretEntries)
      .where(and(eq(secretEntries.mountUuid, this.mountUuid), like(secretEntries.key, `${escaped}%`)))
      .all();
    const children = new Set<string>();
    for (const { key } of rows) {
      const rest = key.slice(prefix.length);
      const slash = rest.indexOf('/');
      children.add(slash === -1 ? rest : rest.slice(0, slash + 1));
    }
    return [...children].filter((child) => child !== '').sort();
  }

  /** Removes everything the mount stored (disabling a mount). */
  clear(): void {
    this.db.delete(secretEntries).where(eq(secretEntries.mountUuid, this.mountUuid)).run();
  }
}
