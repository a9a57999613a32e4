import { asc, eq } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import { badRequest } from '../../core/errors.js';
import { base62, uuid } from '../../core/ids.js';
import type { DbOrTx } from '../../store/store.js';
import { prepared } from '../../store/prepared.js';
import { mounts } from '../../store/tables.js';

export type MountRow = typeof mounts.$inferSelect;

/** Paths that belong to the server itself: nothing can be mounted at or under them. */
const PROTECTED_PREFIXES = ['sys/', 'auth/', 'identity/', 'audit/'];
/** Mounts that exist on every server and cannot be disabled or moved. */
const PERMANENT_MOUNTS = ['cubbyhole/'];

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

export interface EnableMountInput {
  path: string;
  type: string;
  description?: string;
  config?: Record<string, unknown>;
  options?: Record<string, string> | null;
  local?: boolean;
  sealWrap?: boolean;
}

/** Every request resolves its mount from this list, so the statement is built once. */
const allMounts = prepared((db) => db.select().from(mounts).orderBy(asc(mounts.path)).prepare());

/** Mounted engines, read from the store on each lookup so every request sees the current table. */
export class MountTable {
  constructor(
    private readonly db: DbOrTx,
    private readonly clock: Clock,
  ) {}

  all(): MountRow[] {
    return allMounts(this.db).all();
  }

  get(path: string): MountRow | undefined {
    return this.db
      .select()
      .from(mounts)
      .where(eq(mounts.path, mountPath(path)))
      .get();
  }

  ofType(type: string): MountRow[] {
    return this.db.select().from(mounts).where(eq(mounts.type, type)).all();
  }

  /** The mount whose path is the longest prefix of `requestPath`. */
  longestPrefix(requestPath: string): MountRow | undefined {
    let best: MountRow | undefined;
    for (const mount of this.all()) {
      if (`${requestPath}/`.startsWith(mount.path) && (!best || mount.path.length > best.path.length)) best = mount;
    }
    return best;
  }

  /** Why `path` cannot take a new mount, if it cannot: reserved, taken, or nested with another mount. */
  private conflict(path: string): string | undefined {
    if (!isValidMountPath(path)) return `invalid mount path "${path}"`;
    if (PROTECTED_PREFIXES.some((prefix) => path.startsWith(prefix))) return `cannot mount "${path}"`;
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
      accessor: `${input.type}_${base62(8).toLowerCase()}`,
      uuid: uuid(),
      config: input.config ?? {},
      options: input.options ?? null,
      local: input.local ?? false,
      sealWrap: input.sealWrap ?? false,
      createdAt: this.clock.now(),
    };
    this.db.insert(mounts).values(row).run();
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
    if (PERMANENT_MOUNTS.includes(normalized) || PROTECTED_PREFIXES.some((prefix) => normalized.startsWith(prefix))) {
      throw badRequest(`cannot ${verb} "${normalized}"`);
    }
  }

  remove(path: string): void {
    this.db
      .delete(mounts)
      .where(eq(mounts.path, mountPath(path)))
      .run();
  }

  update(path: string, patch: Partial<Pick<MountRow, 'config' | 'description' | 'options'>>): void {
    this.db
      .update(mounts)
      .set(patch)
      .where(eq(mounts.path, mountPath(path)))
      .run();
  }

  /** Moves a mount; its data stays with it, since storage is keyed by the mount's uuid. */
  move(from: string, to: string): MountRow {
    const source = this.get(from);
    if (!source) throw badRequest(`no matching mount at "${mountPath(from)}"`);
    const target = mountPath(to);
    if (!isValidMountPath(target)) throw badRequest(`invalid mount path "${target}"`);
    if (PROTECTED_PREFIXES.some((prefix) => target.startsWith(prefix)) || PERMANENT_MOUNTS.includes(target)) {
      throw badRequest(`cannot remount to destination "${target}"`);
    }
    const clash = this.all().find(
      (mount) => mount.path !== source.path && (mount.path.startsWith(target) || target.startsWith(mount.path)),
    );
    if (clash || target === source.path) throw badRequest(`path is already in use at ${clash?.path ?? target}`);
    this.db.update(mounts).set({ path: target }).where(eq(mounts.path, source.path)).run();
    return { ...source, path: target };
  }
}
