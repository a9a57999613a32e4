import type { DueItem, DueSource, RanWork, Scheduler } from './scheduler.js';

/** An item of timed work and when it falls due (epoch ms). */
export interface Pending<T> {
  at: number;
  item: T;
}

export interface EarliestDueSpec<T> {
  /** The source's name in the scheduler (`transit-auto-rotation`, …). */
  name: string;
  /** Scans the store for the earliest pending item, due or not; runs only when nothing is cached. */
  findEarliest: () => Pending<T> | null;
  /** Acts on the item. It checks the item is still due: the store may have changed since the scan. */
  run: (pending: Pending<T>) => Promise<RanWork>;
  /** After `/_emulator/reset`, beyond dropping the cache (closing connections, …). */
  onReset?: () => void;
}

/**
 * A scheduler source for work kept in the store, one item at a time: the earliest item is found by
 * a scan and cached, so the scheduler's frequent `next()` calls stay cheap. Every write that may
 * move the earliest item calls `changed()`; running an item drops the cache too, whatever it did.
 */
export class EarliestDue<T> implements DueSource {
  readonly name: string;
  private cached: Pending<T> | null | undefined;

  constructor(
    private readonly scheduler: Pick<Scheduler, 'poke'>,
    private readonly spec: EarliestDueSpec<T>,
  ) {
    this.name = spec.name;
  }

  next(): DueItem | undefined {
    if (this.cached === undefined) this.cached = this.spec.findEarliest();
    const pending = this.cached;
    if (!pending) return undefined;
    return { at: pending.at, run: () => this.runOne(pending) };
  }

  /** A write changed what is due: forget the cached item and let the scheduler look again. */
  changed(): void {
    this.cached = undefined;
    this.scheduler.poke();
  }

  reset(): void {
    this.cached = undefined;
    this.spec.onReset?.();
  }

  private async runOne(pending: Pending<T>): Promise<RanWork> {
    try {
      return await this.spec.run(pending);
    } finally {
      this.cached = undefined;
    }
  }
}
