import { EarliestDue, type Pending } from '../../core/earliest-due.js';
import type { RanWork, Scheduler } from '../../core/scheduler.js';
import type { DbOrTx } from '../../store/store.js';
import type { MountRow } from '../mounts/mount-table.js';
import { MountStorage } from '../storage/mount-storage.js';

/** An entry in one mount's storage: a transit key, a static role. */
export interface MountEntry {
  mountUuid: string;
  name: string;
}

export interface DueInMountsSpec {
  name: string;
  db: DbOrTx;
  scheduler: Pick<Scheduler, 'poke'>;
  /** The mounts to scan (an engine's mounts of its type, read at each scan: mounts come and go). */
  mounts: () => readonly MountRow[];
  /** Each entry of one mount's storage that has timed work, with when it falls due. */
  dueTimes: (storage: MountStorage) => Iterable<{ name: string; at: number }>;
  run: (pending: Pending<MountEntry>, storage: MountStorage) => Promise<RanWork>;
  onReset?: () => void;
}

/**
 * The scheduler source of an engine whose timed work lives with its entries in mount storage
 * (transit's automatic rotation, database static roles): the earliest entry across all its
 * mounts, cached until `changed()`.
 */
export function dueInMounts(spec: DueInMountsSpec): EarliestDue<MountEntry> {
  return new EarliestDue<MountEntry>(spec.scheduler, {
    name: spec.name,
    findEarliest: () => {
      let best: Pending<MountEntry> | null = null;
      for (const mount of spec.mounts()) {
        for (const { name, at } of spec.dueTimes(new MountStorage(spec.db, mount.uuid))) {
          if (!best || at < best.at) best = { at, item: { mountUuid: mount.uuid, name } };
        }
      }
      return best;
    },
    run: (pending) => spec.run(pending, new MountStorage(spec.db, pending.item.mountUuid)),
    ...(spec.onReset ? { onReset: spec.onReset } : {}),
  });
}
