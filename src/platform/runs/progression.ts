import type { ControllableClock } from '../../core/clock.js';
import type { Scheduler } from '../../core/scheduler.js';

export type Progression = 'immediate' | 'clock' | 'manual';

/** How long each state lasts under the `clock` progression, in virtual time. */
export const CLOCK_STEP_MS = 5_000;

/**
 * How simulated runs are paced: the config's choice, unless the control plane chose one for
 * everything or for one workspace (until the next reset). A run keeps the progression it was
 * created with (stored on it).
 */
export class Progressions {
  private readonly perWorkspace = new Map<string, Progression>();
  private global: Progression | null = null;

  constructor(private readonly configured: Progression) {}

  of(workspaceId: string): Progression {
    return this.perWorkspace.get(workspaceId) ?? this.global ?? this.configured;
  }

  /** The control plane's choice for every workspace without one of its own. */
  setGlobal(mode: Progression): void {
    this.global = mode;
  }

  setFor(workspaceId: string, mode: Progression): void {
    this.perWorkspace.set(workspaceId, mode);
  }

  reset(): void {
    this.perWorkspace.clear();
    this.global = null;
  }
}

/** A run's wait under the manual or clock progression; `at` is the virtual time the clock opens it. */
export interface Gate {
  resolve: () => void;
  at?: number;
}

/** Waits at a gate: `manual` until released, `clock` until `CLOCK_STEP_MS` of virtual time passed. */
export function waitAtGate(
  mode: Progression,
  clock: ControllableClock,
  scheduler: Scheduler,
  set: (gate: Gate) => void,
): Promise<void> | undefined {
  if (mode !== 'clock' && mode !== 'manual') return undefined;
  return new Promise<void>((resolve) => {
    set({ resolve, ...(mode === 'clock' ? { at: clock.nowMs() + CLOCK_STEP_MS } : {}) });
    if (mode === 'clock') scheduler.poke();
  });
}
