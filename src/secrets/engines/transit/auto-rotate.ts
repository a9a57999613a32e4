import type { Clock } from '../../../core/clock.js';
import type { DueSource, RanWork, Scheduler } from '../../../core/scheduler.js';
import type { DbOrTx } from '../../../store/store.js';
import { dueInMounts } from '../../framework/due-in-mounts.js';
import type { MountTable } from '../../mounts/mount-table.js';
import { rotate } from './paths-lifecycle.js';
import { readPolicy, type KeyPolicy } from './policy.js';

/** When a key's next automatic rotation falls due: its latest version's age reaching the period. */
const dueAt = (policy: KeyPolicy) => Date.parse(policy.keys[String(policy.latest_version)]?.time ?? '') + policy.auto_rotate_period * 1000;

/**
 * Automatic rotation (`auto_rotate_period`) on the injectable clock: advancing the clock past a
 * key's period rotates it. The earliest due key is cached and dropped on every key write.
 */
export class AutoRotation {
  private readonly source;

  constructor(private readonly deps: { db: DbOrTx; clock: Clock; scheduler: Scheduler; mounts: MountTable }) {
    this.source = dueInMounts({
      name: 'transit-auto-rotation',
      db: deps.db,
      scheduler: deps.scheduler,
      mounts: () => deps.mounts.ofType('transit'),
      dueTimes: function* (storage) {
        for (const name of storage.list('policy/')) {
          const policy = readPolicy(storage, name);
          if (policy && policy.auto_rotate_period !== 0) yield { name, at: dueAt(policy) };
        }
      },
      run: async ({ at, item }, storage): Promise<RanWork> => {
        const work = { at: new Date(at).toISOString(), kind: 'transit-key-rotation', subject: item.name };
        const policy = readPolicy(storage, item.name);
        if (!policy || policy.auto_rotate_period === 0 || dueAt(policy) > this.deps.clock.nowMs()) {
          return { ...work, outcome: 'done', detail: policy ? 'no longer due' : 'key gone' };
        }
        const rotated = await rotate({ storage }, item.name, { clock: this.deps.clock, changed: () => this.changed() });
        return { ...work, outcome: 'done', detail: `rotated to version ${rotated?.latest_version ?? 0}` };
      },
    });
  }

  changed(): void {
    this.source.changed();
  }

  dueSource(): DueSource {
    return this.source;
  }
}
