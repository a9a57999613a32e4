import { asc, eq } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import { badRequest } from '../../core/errors.js';
import { base62, uuid } from '../../core/ids.js';
import type { DbOrTx } from '../../store/store.js';
import { mounts } from '../../store/tables.js';

export type MountRow = typeof mounts.$inferSelect;

/** Normalises a mount path to `a/b/` form. */
export function mountPath(path: string): string {
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  return `${trimmed}/`;
}

/** Mounted engines, read from the store on each lookup so every request sees the current table. */
export class MountTable {
  constructor(
    private readonly db: DbOrTx,
    private readonly clock: Clock,
  ) {}

  all(): MountRow[] {
    return this.db.select().from(mounts).orderBy(asc(mounts.path)).all();
  }

  get(path: string): MountRow | undefined {
    return this.db.select().from(mounts).where(eq(mounts.path, mountPath(path))).get();
  }

  /** The mount whose path is the longest prefix of `requestPath`. */
  longestPrefix(requestPath: string): MountRow | undefined {
    let best: MountRow | undefined;
    for (const mount of this.all()) {
      if (`${requestPath}/`.startsWith(mount.path) && (!best || mount.path.length > best.path.length)) best = mount;
    }
    return best;
  }

  /** Enables an engine at `path`; idempotent when the same type is already there (seeds re-run). */
  ensure(input: { path: string; type: string; description?: string; config?: Record<string, unknown>; local?: boolean }): MountRow {
    const path = mountPath(input.path);
    const existing = this.get(path);
    if (existing) {
      if (existing.type !== input.type) throw badRequest(`path is already in use at ${path}`);
      return existing;
    }
    const row: MountRow = {
      path,
      type: input.type,
      description: input.description ?? '',
      accessor: `${input.type}_${base62(8).toLowerCase()}`,
      uuid: uuid(),
      config: input.config ?? {},
      options: null,
      local: input.local ?? false,
      sealWrap: false,
      createdAt: this.clock.now(),
    };
    this.db.insert(mounts).values(row).run();
    return row;
  }
}
