import { asc, eq, sql } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import { badRequest } from '../../core/errors.js';
import { base62, uuid } from '../../core/ids.js';
import { StoreDerived } from '../../store/generation.js';
import { sqliteOf, type DbOrTx } from '../../store/store.js';
import { prepared } from '../../store/prepared.js';
import { authMounts, mounts } from '../../store/tables.js';

export type MountRow = typeof mounts.$inferSelect;

/**
 * The two mount tables: secrets engines (`sys/mounts`) and auth methods (`sys/auth`, paths relative
 * to `auth/`). `reserved`: paths that belong to the server itself; `permanent`: mounts every server has.
 */
export interface MountKind {
  /** Both tables have the same columns (mountColumns), so one set of queries serves both. */
  table: typeof mounts;
  reserved: readonly string[];
  permanent: readonly string[];
  /** Accessors read `<prefix><type>_<random>`: `auth_userpass_1a2b3c4d` for auth methods. */
  accessorPrefix: string;
}

export const SECRET_MOUNTS: MountKind = {
  table: mounts,
  reserved: ['sys/', 'auth/', 'identity/', 'audit/'],
  permanent: ['cubbyhole/'],
  accessorPrefix: '',
};
export const AUTH_MOUNTS: MountKind = {
  // Same columns, another name: drizzle's type carries the name, so the cast only renames it.
  table: authMounts as unknown as typeof mounts,
  reserved: [],
  permanent: ['token/'],
  accessorPrefix: 'auth_',
};

/** Normalises a mount path to `a/b/` form. */
export function mountPath(path: string): string {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return `${trimmed}/`;
}

/** A normalised path (`a/b/`) with no empty, `.` or `..` segment: one requests can address. */
function isValidMountPath(path: string): boolean {
  return (
    path !== '/' &&
    !path
      .split('/')
      .slice(0, -1)
      .some((segment) => segment === '' || segment === '.' || segment === '..')
  );
}

/** `kv-v1` and `kv-v2` are the key/value engine with its version as an option, as the real service stores them. */
export function canonicalMountType(
  type: string,
  options: Record<string, string> | null | undefined,
): { type: string; options: Record<string, string> | null } {
  const version = { 'kv-v1': '1', 'kv-v2': '2' }[type];
  if (version) return { type: 'kv', options: { ...options, version } };
  return { type, options: options ?? null };
}

export interface EnableMountInput {
  path: string;
  type: string;
  description?: string;
  config?: Record<string, unknown>;
  options?: Record<string, string> | null;
  local?: boolean;
  sealWrap?: boolean;
}

/** Every request resolves its mount from these lists, so the statements are built once. */
const allSecretMounts = prepared((db) => db.select().from(mounts).orderBy(asc(mounts.path)).prepare());
const allAuthMounts = prepared((db) => db.select().from(authMounts).orderBy(asc(authMounts.path)).prepare());
const secretMountAt = prepared((db) =>
  db
    .select()
    .from(mounts)
    .where(eq(mounts.path, sql.placeholder('path')))
    .prepare(),
);
const authMountAt = prepared((db) =>
  db
    .select()
    .from(authMounts)
    .where(eq(authMounts.path, sql.placeholder('path')))
    .prepare(),
);
const secretMountsOfType = prepared((db) =>
  db
    .select()
    .from(mounts)
    .where(eq(mounts.type, sql.placeholder('type')))
    .prepare(),
);
const authMountsOfType = prepared((db) =>
  db
    .select()
    .from(authMounts)
    .where(eq(authMounts.type, sql.placeholder('type')))
    .prepare(),
);
/** Only the storage key of a mount: wrapping and revocation need no more of the row (nor its parsing). */
const secretMountUuidAt = prepared((db) =>
  db
    .select({ uuid: mounts.uuid })
    .from(mounts)
    .where(eq(mounts.path, sql.placeholder('path')))
    .prepare(),
);
const secretMountUuidsOfType = prepared((db) =>
  db
    .select({ uuid: mounts.uuid })
    .from(mounts)
    .where(eq(mounts.type, sql.placeholder('type')))
    .prepare(),
);

/**
 * Mounted engines, read from the store, so every request sees the current table. The mounts that
 * requests resolve to are remembered by path (every secrets request resolves one, and reading a
 * row parses its JSON columns): this table's own writes forget them, a reset or a restore
 * replaces them (store generation), and nothing is remembered inside a transaction, which could
 * still roll back. Only this table writes its rows (the seed's tables write before any request).
 */
export class MountTable {
  private readonly table: typeof mounts;
  private readonly resolved: StoreDerived<Map<string, Readonly<MountRow>>>;
  /**
   * The uuids of each mount type asked for, kept as `resolved` is: every token revocation asks
   * for the cubbyhole mounts (a query per unwrap of a wrapping token).
   */
  private readonly uuidsByType: StoreDerived<Map<string, readonly string[]>>;

  constructor(
    private readonly db: DbOrTx,
    private readonly clock: Clock,
    private readonly kind: MountKind = SECRET_MOUNTS,
  ) {
    this.table = kind.table;
    this.resolved = new StoreDerived(sqliteOf(db), () => new Map<string, Readonly<MountRow>>());
    this.uuidsByType = new StoreDerived(sqliteOf(db), () => new Map<string, readonly string[]>());
  }

  /** Called by each of this table's writes before it writes: what was remembered of its rows may change. */
  private forgetRemembered(): void {
    this.resolved.drop();
    this.uuidsByType.drop();
  }

  all(): MountRow[] {
    return (this.kind === AUTH_MOUNTS ? allAuthMounts : allSecretMounts)(this.db).all();
  }

  get(path: string): MountRow | undefined {
    return (this.kind === AUTH_MOUNTS ? authMountAt : secretMountAt)(this.db).get({ path: mountPath(path) });
  }

  /** The storage key (uuid) of the secrets engine mounted at `path`. */
  uuidAt(path: string): string | undefined {
    if (this.kind === AUTH_MOUNTS) return this.get(path)?.uuid;
    return secretMountUuidAt(this.db).get({ path: mountPath(path) })?.uuid;
  }

  /** The storage keys (uuids) of the mounts of `type`. */
  uuidsOfType(type: string): readonly string[] {
    if (this.kind === AUTH_MOUNTS) return this.ofType(type).map((mount) => mount.uuid);
    const read = () =>
      secretMountUuidsOfType(this.db)
        .all({ type })
        .map((row) => row.uuid);
    if (sqliteOf(this.db).inTransaction) return read();
    const remembered = this.uuidsByType.get();
    let uuids = remembered.get(type);
    if (uuids === undefined) {
      // Shared by every caller: frozen, so no caller changes another's list.
      uuids = Object.freeze(read());
      remembered.set(type, uuids);
    }
    return uuids;
  }

  ofType(type: string): MountRow[] {
    return (this.kind === AUTH_MOUNTS ? authMountsOfType : secretMountsOfType)(this.db).all({ type });
  }

  /**
   * The mount whose path is a prefix of `requestPath`. Mount paths end in `/`, so the candidates
   * are the prefixes of the path that end in one: a point read each, however many mounts there
   * are. Mounts never nest (`conflict` refuses a mount above or below another), so at most one
   * candidate exists and the shortest is tried first: one read for `secret/data/a/b`.
   */
  longestPrefix(requestPath: string): MountRow | undefined {
    const at = (this.kind === AUTH_MOUNTS ? authMountAt : secretMountAt)(this.db);
    const remembered = sqliteOf(this.db).inTransaction ? undefined : this.resolved.get();
    const full = `${requestPath}/`;
    for (let end = full.indexOf('/') + 1; end > 0; end = full.indexOf('/', end) + 1) {
      const path = full.slice(0, end);
      const known = remembered?.get(path);
      if (known) return known;
      const found = at.get({ path });
      if (found) {
        // Shared by every request that resolves here: frozen, so no caller changes another's copy.
        remembered?.set(path, Object.freeze(found));
        return found;
      }
    }
    return undefined;
  }

  /** A mount at, above or below `path`: one a new mount there would clash with. */
  clashing(path: string): MountRow | undefined {
    const wanted = mountPath(path);
    return this.all().find((mount) => mount.path.startsWith(wanted) || wanted.startsWith(mount.path));
  }

  /** Why `path` cannot take a new mount, if it cannot: reserved, taken, or nested with another mount. */
  private conflict(path: string): string | undefined {
    if (!isValidMountPath(path)) return `invalid mount path "${path}"`;
    if (this.kind.reserved.some((prefix) => path.startsWith(prefix))) return `cannot mount "${path}"`;
    const clash = this.all().find((mount) => mount.path.startsWith(path) || path.startsWith(mount.path));
    return clash ? `path is already in use at ${clash.path}` : undefined;
  }

  /** Enables an engine at `path` (POST sys/mounts/:path); the caller has checked the type. */
  enable(input: EnableMountInput): MountRow {
    const path = mountPath(input.path);
    const problem = this.conflict(path);
    if (problem) throw badRequest(problem);
    const row: MountRow = {
      path,
      type: input.type,
      description: input.description ?? '',
      accessor: `${this.kind.accessorPrefix}${input.type}_${base62(8).toLowerCase()}`,
      uuid: uuid(),
      config: input.config ?? {},
      options: input.options ?? null,
      local: input.local ?? false,
      sealWrap: input.sealWrap ?? false,
      createdAt: this.clock.now(),
    };
    this.forgetRemembered();
    this.db.insert(this.table).values(row).run();
    return row;
  }

  /** Enables an engine unless the same type is already there (the seed runs at every start). */
  ensure(input: EnableMountInput): MountRow {
    const existing = this.get(input.path);
    if (existing) {
      if (existing.type !== input.type) throw badRequest(`path is already in use at ${existing.path}`);
      return existing;
    }
    return this.enable(input);
  }

  /** Refuses to disable or move the mounts every server has. */
  assertRemovable(path: string, verb: 'unmount' | 'remount'): void {
    const normalized = mountPath(path);
    if (this.kind.permanent.includes(normalized) || this.kind.reserved.some((prefix) => normalized.startsWith(prefix))) {
      throw badRequest(`cannot ${verb} "${normalized}"`);
    }
  }

  remove(path: string): void {
    this.forgetRemembered();
    this.db
      .delete(this.table)
      .where(eq(this.table.path, mountPath(path)))
      .run();
  }

  update(path: string, patch: Partial<Pick<MountRow, 'config' | 'description' | 'options'>>): void {
    this.forgetRemembered();
    this.db
      .update(this.table)
      .set(patch)
      .where(eq(this.table.path, mountPath(path)))
      .run();
  }

  /** Moves a mount; its data stays with it, since storage is keyed by the mount's uuid. */
  move(from: string, to: string): MountRow {
    const source = this.get(from);
    if (!source) throw badRequest(`no matching mount at "${mountPath(from)}"`);
    const target = mountPath(to);
    if (!isValidMountPath(target)) throw badRequest(`invalid mount path "${target}"`);
    if (this.kind.reserved.some((prefix) => target.startsWith(prefix)) || this.kind.permanent.includes(target)) {
      throw badRequest(`cannot remount to destination "${target}"`);
    }
    const clash = this.all().find(
      (mount) => mount.path !== source.path && (mount.path.startsWith(target) || target.startsWith(mount.path)),
    );
    if (clash || target === source.path) throw badRequest(`path is already in use at ${clash?.path ?? target}`);
    this.forgetRemembered();
    this.db.update(this.table).set({ path: target }).where(eq(this.table.path, source.path)).run();
    return { ...source, path: target };
  }
}
