import type { Clock } from '../../../core/clock.js';
import type { DueItem, DueSource, RanWork, Scheduler } from '../../../core/scheduler.js';
import type { DbOrTx } from '../../../store/store.js';
import type { MountTable } from '../../mounts/mount-table.js';
import { MountStorage } from '../../storage/mount-storage.js';
import { rotate } from './paths-lifecycle.js';
import { readPolicy, type KeyPolicy } from './policy.js';

interface Pending {
  at: number;
  mountUuid: string;
  name: string;
}

/** When a key's next automatic rotation falls due: its latest version's age reaching the period. */
const dueAt = (policy: KeyPolicy) => Date.parse(policy.keys[String(policy.latest_version)]?.time ?? '') + policy.auto_rotate_period * 1000;

/**
 * Automatic rotation (`auto_rotate_period`) on the injectable clock: advancing the clock past a
 * key's period rotates it. The earliest due key is cached and dropped on every key write.
 */
export class AutoRotation {
  private earliest: Pending | null | undefined;

  constructor(private readonly deps: { db: DbOrTx; clock: Clock; scheduler: Scheduler; mounts: MountTable }) {}

  changed(): void {
    this.earliest = undefined;
    this.deps.scheduler.poke();
  }

  private findEarliest(): Pending | null {
    let best: Pending | null = null;
    for (const mount of this.deps.mounts.ofType('transit')) {
      const storage = new MountStorage(this.deps.db, mount.uuid);
      for (const name of storage.list('policy/')) {
        const policy = readPolicy(storage, name);
        if (!policy || policy.auto_rotate_period === 0) continue;
        const at = dueAt(policy);
        if (!best || at < best.at) best = { at, mountUuid: mount.uuid, name };
      }
    }
    return best;
  }

  dueSource(): DueSource {
    return {
      name: 'transit-auto-rotation',
      next: (): DueItem | undefined => {
        if (this.earliest === undefined) this.earliest = this.findEarliest();
        const pending = this.earliest;
        if (!pending) return undefined;
        return { at: pending.at, run: () => this.runDue(pending) };
      },
      reset: () => {
        this.earliest = undefined;
      },
    };
  }

  private async runDue(pending: Pending): Promise<RanWork> {
    const work = { at: new Date(pending.at).toISOString(), kind: 'transit-key-rotation', subject: pending.name };
    const storage = new MountStorage(this.deps.db, pending.mountUuid);
    const policy = readPolicy(storage, pending.name);
    if (!policy || policy.auto_rotate_period === 0 || dueAt(policy) > this.deps.clock.nowMs()) {
      this.changed();
      return { ...work, outcome: 'done', detail: policy ? 'no longer due' : 'key gone' };
    }
    const rotated = await rotate({ storage }, pending.name, { clock: this.deps.clock, changed: () => this.changed() });
    return { ...work, outcome: 'done', detail: `rotated to version ${rotated?.latest_version ?? 0}` };
  }
}
