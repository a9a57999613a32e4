import { afterEach, describe, expect, it } from 'vitest';
import { ControllableClock } from '../../src/core/clock.js';
import { Scheduler, type DueItem, type DueSource, type RanWork } from '../../src/core/scheduler.js';

/** A source holding one item due at `atMs` (or none); `ran` settles when the scheduler runs it. */
function oneItemSource(name: string, atMs: number | undefined) {
  let pending = atMs;
  let settle: (work: RanWork) => void = () => undefined;
  const ran = new Promise<RanWork>((resolve) => (settle = resolve));
  const source: DueSource = {
    name,
    next(): DueItem | undefined {
      if (pending === undefined) return undefined;
      const at = pending;
      return {
        at,
        run: async () => {
          pending = undefined;
          const work: RanWork = { at: new Date(at).toISOString(), kind: name, subject: name, outcome: 'done' };
          settle(work);
          return work;
        },
      };
    },
  };
  return { source, ran };
}

describe('Scheduler', () => {
  const schedulers: Scheduler[] = [];
  const scheduler = (clock: ControllableClock) => {
    const made = new Scheduler(clock);
    schedulers.push(made);
    return made;
  };
  afterEach(async () => {
    await Promise.all(schedulers.splice(0).map((made) => made.stop()));
  });

  it('runs the due item of a source registered after the timer was armed for a later wake-up', async () => {
    const clock = new ControllableClock();
    const timed = scheduler(clock);
    // Armed first for nothing at all (the longest sleep), then for an item a day away.
    timed.register(oneItemSource('idle', undefined).source);
    timed.register(oneItemSource('tomorrow', clock.nowMs() + 86_400_000).source);
    const dueNow = oneItemSource('due-now', clock.nowMs());
    timed.register(dueNow.source);
    await expect(dueNow.ran).resolves.toMatchObject({ kind: 'due-now', outcome: 'done' });
  });

  it('runs every registered source in time order when the clock is moved past them', async () => {
    const clock = new ControllableClock();
    const timed = scheduler(clock);
    const start = clock.nowMs();
    timed.register(oneItemSource('second', start + 2 * 3600_000).source);
    timed.register(oneItemSource('first', start + 3600_000).source);
    timed.register(oneItemSource('none', undefined).source);
    const ran = await timed.advanceTo(start + 3 * 3600_000);
    expect(ran.map((work) => work.kind)).toEqual(['first', 'second']);
  });
});
