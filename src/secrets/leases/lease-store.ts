import { and, asc, eq, ne, sql, type SQL } from 'drizzle-orm';
import { inList } from '../../store/sql-lists.js';
import type { DbOrTx } from '../../store/store.js';
import { prepared } from '../../store/prepared.js';
import { secretLeases } from '../../store/tables.js';
import type { LeaseRecord } from '../framework/types.js';

/** Narrows to ids starting with `prefix`; LIKE ignores ASCII case, so callers filter exactly after. */
function idLike(prefix: string): SQL {
  const pattern = `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  return sql`${secretLeases.id} LIKE ${pattern} ESCAPE '\\'`;
}

/** The scheduler asks for this after every change that adds timed work; irrevocable leases have none. */
const firstDue = prepared((db) =>
  db
    .select()
    .from(secretLeases)
    .where(ne(secretLeases.state, 'irrevocable'))
    .orderBy(asc(secretLeases.dueAt), asc(secretLeases.id))
    .limit(1)
    .prepare(),
);

/** A revocation asks for the leases of one token (the usual tree) first: built once. */
const idsOfOneToken = prepared((db) =>
  db
    .select({ id: secretLeases.id })
    .from(secretLeases)
    .where(eq(secretLeases.tokenId, sql.placeholder('tokenId')))
    .prepare(),
);

/** Queries over the lease table; the rules live in LeaseManager. */
export class LeaseStore {
  constructor(private readonly db: DbOrTx) {}

  get(id: string): LeaseRecord | undefined {
    return this.db.select().from(secretLeases).where(eq(secretLeases.id, id)).get();
  }

  insert(lease: LeaseRecord): void {
    this.db.insert(secretLeases).values(lease).run();
  }

  update(id: string, patch: Partial<LeaseRecord>): void {
    this.db.update(secretLeases).set(patch).where(eq(secretLeases.id, id)).run();
  }

  delete(id: string): void {
    this.db.delete(secretLeases).where(eq(secretLeases.id, id)).run();
  }

  /** The lease that falls due first. */
  earliest(): LeaseRecord | undefined {
    return firstDue(this.db).get();
  }

  /** Leases out of retries, by expiry then id (the real listing's order). */
  irrevocable(): LeaseRecord[] {
    return this.db
      .select()
      .from(secretLeases)
      .where(eq(secretLeases.state, 'irrevocable'))
      .orderBy(asc(secretLeases.expiresAt), asc(secretLeases.id))
      .all();
  }

  idsWithPrefix(prefix: string): string[] {
    return this.db
      .select({ id: secretLeases.id })
      .from(secretLeases)
      .where(idLike(prefix))
      .orderBy(asc(secretLeases.id))
      .all()
      .map((row) => row.id)
      .filter((id) => id.startsWith(prefix));
  }

  idsOfTokens(tokenIds: string[]): string[] {
    if (tokenIds.length === 0) return [];
    if (tokenIds.length === 1)
      return idsOfOneToken(this.db)
        .all({ tokenId: tokenIds[0] })
        .map((row) => row.id);
    return this.db
      .select({ id: secretLeases.id })
      .from(secretLeases)
      .where(inList(secretLeases.tokenId, tokenIds))
      .all()
      .map((row) => row.id);
  }

  idsOfMount(mountUuid: string): string[] {
    return this.db
      .select({ id: secretLeases.id })
      .from(secretLeases)
      .where(eq(secretLeases.mountUuid, mountUuid))
      .all()
      .map((row) => row.id);
  }

  /** Moves leases to a new mount path (remount keeps leases, under their new ids). */
  renamePrefix(mountUuid: string, from: string, to: string): void {
    const rows = this.db
      .select()
      .from(secretLeases)
      .where(and(eq(secretLeases.mountUuid, mountUuid), idLike(from)))
      .all();
    for (const row of rows.filter((lease) => lease.id.startsWith(from))) {
      this.update(row.id, { id: to + row.id.slice(from.length), path: to + row.path.slice(from.length) });
    }
  }
}
