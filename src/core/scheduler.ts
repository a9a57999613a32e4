import type { FastifyBaseLogger } from 'fastify';
import type { ControllableClock } from './clock.js';

/** One piece of work that ran because its time came: what the clock endpoint reports. */
export interface RanWork {
  /** When the work was due (ISO 8601); the clock stood there while it ran. */
  at: string;
  /** `lease-revocation`, `token-expiry`, … */
  kind: string;
  /** What it acted on; never a secret (a lease id, a token accessor). */
  subject: string;
  outcome: 'done' | 'failed';
  detail?: string;
}

/** The earliest pending item of one source. */
export interface DueItem {
  /** Epoch milliseconds at which the item falls due. */
  at: number;
  run(): Promise<RanWork>;
}

/**
 * Something that owns timed work (lease expiry, token expiry, later rotations). Sources keep their
 * state in the store, so a restart finds pending work where it was left.
 */
export interface DueSource {
  readonly name: string;
  /** The source's earliest pending item, due or not; undefined when it has none. */
  next(): DueItem | undefined;
  /** After `/_emulator/reset` wiped the store: drop anything kept in memory about it. */
  reset?(): void;
}

/** Longest the timer sleeps, so work a source added without `poke()` is still picked up. */
const MAX_SLEEP_MS = 30_000;
/** Guard against a source that never makes progress (a bug, not an expected state). */
const MAX_ITEMS_PER_PASS = 10_000;

/**
 * Runs due work in time order. Advancing the clock through `advanceTo` runs everything that falls
 * due on the way, each item with the clock standing at its due time; with the real clock, a timer
 * wakes for the next due item. One pass runs at a time, so the timer and the clock endpoint
 * never interleave.
 */
export class Scheduler {
  private readonly sources: DueSource[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** Clock time (epoch ms) at which the armed timer runs its pass; work due later is found then. */
  private wakeAtMs: number | undefined;
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly clock: ControllableClock,
    private readonly log?: FastifyBaseLogger,
  ) {}

  register(source: DueSource): void {
    this.sources.push(source);
    // With a timer armed, only the new source can bring the wake-up forward: asking every source
    // again at each registration was a query per source per source at start-up (some 17 ms of CPU).
    if (this.timer === undefined) this.poke();
    else {
      const dueAtMs = source.next()?.at;
      if (dueAtMs !== undefined) this.poke(dueAtMs);
    }
  }

  /** The earliest pending item across all sources. */
  private earliest(): DueItem | undefined {
    let best: DueItem | undefined;
    for (const source of this.sources) {
      const item = source.next();
      if (item && (!best || item.at < best.at)) best = item;
    }
    return best;
  }

  /** When the next item falls due (epoch ms), if any. */
  nextDueMs(): number | undefined {
    return this.earliest()?.at;
  }

  /** Serialises passes: the timer's and the clock endpoint's. */
  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    const result = this.chain.then(work, work);
    this.chain = result.catch(() => undefined);
    return result;
  }

  /** Runs every item due at or before `untilMs`, moving the clock forward to each one's time. */
  private async drain(untilMs: number): Promise<RanWork[]> {
    const ran: RanWork[] = [];
    for (let count = 0; count < MAX_ITEMS_PER_PASS && !this.stopped; count++) {
      const item = this.earliest();
      if (!item || item.at > untilMs) break;
      if (item.at > this.clock.nowMs()) this.clock.set(new Date(item.at));
      try {
        ran.push(await item.run());
      } catch (error) {
        // Sources record their own expected failures; this is a bug, so stop the pass rather than spin.
        this.log?.error({ err: error }, 'scheduled work failed unexpectedly');
        ran.push({
          at: new Date(item.at).toISOString(),
          kind: 'internal',
          subject: '',
          outcome: 'failed',
          detail: (error as Error).message,
        });
        break;
      }
    }
    return ran;
  }

  /** Runs whatever is due now. */
  runDue(): Promise<RanWork[]> {
    return this.exclusive(async () => {
      const ran = await this.drain(this.clock.nowMs());
      this.arm();
      return ran;
    });
  }

  /**
   * Moves the clock to `targetMs`, running due work in time order on the way. Moving backwards
   * needs `force` and runs nothing (the clock throws `ClockMovedBackwardsError` otherwise).
   */
  advanceTo(targetMs: number, force = false): Promise<RanWork[]> {
    return this.exclusive(async () => {
      if (targetMs < this.clock.nowMs()) {
        this.clock.set(new Date(targetMs), force);
        this.arm();
        return [];
      }
      const ran = await this.drain(targetMs);
      if (targetMs > this.clock.nowMs()) this.clock.set(new Date(targetMs));
      this.arm();
      return ran;
    });
  }

  /**
   * Re-arms the timer after new work was added (a lease or token created, renewed). With the new
   * work's due time, a timer already set to wake no later than that is left alone: its pass looks
   * for the earliest item again, so recomputing it now (a query per source) would change nothing.
   */
  poke(dueAtMs?: number): void {
    if (this.stopped) return;
    if (dueAtMs !== undefined && this.timer !== undefined && this.wakeAtMs !== undefined && dueAtMs >= this.wakeAtMs) return;
    this.arm();
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.wakeAtMs = undefined;
    if (this.stopped) return;
    const next = this.nextDueMs();
    const now = this.clock.nowMs();
    const delay = next === undefined ? MAX_SLEEP_MS : Math.min(MAX_SLEEP_MS, Math.max(0, next - now));
    this.wakeAtMs = now + delay;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.wakeAtMs = undefined;
      this.runDue().catch((error: unknown) => this.log?.error({ err: error }, 'scheduler pass failed'));
    }, delay);
    // The timer never keeps the process (or a test runner) alive on its own.
    this.timer.unref();
  }

  /** After `/_emulator/reset`: the store was wiped, so sources drop their caches and the timer is recomputed. */
  reset(): void {
    for (const source of this.sources) source.reset?.();
    this.poke();
  }

  /** Stops the timer and waits for a running pass; called before the store closes. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.chain;
  }
}
