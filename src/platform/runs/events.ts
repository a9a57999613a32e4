/**
 * A run's committed status changes, for whoever follows runs without driving them (notification
 * deliveries). A listener is told after the change's transaction has committed; whatever it does
 * or throws, the run goes on (errors, also of an asynchronous listener, are logged and dropped).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { RunStatus } from './lifecycle.js';
import type { RunRow } from './repo.js';

export interface RunTransition {
  /** The run as it is after the change. */
  run: RunRow;
  /** The status it left; null when the run was just created (`pending`). */
  from: RunStatus | null;
  to: RunStatus;
}

export type TransitionListener = (event: RunTransition) => void | Promise<void>;

export class TransitionEvents {
  private readonly listeners = new Set<TransitionListener>();

  constructor(private readonly log: FastifyBaseLogger) {}

  /** Adds a listener; the function returned removes it. */
  add(listener: TransitionListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: RunTransition): void {
    for (const listener of this.listeners) {
      try {
        const result = listener(event);
        if (result instanceof Promise) result.catch((error: unknown) => this.failed(error, event));
      } catch (error) {
        this.failed(error, event);
      }
    }
  }

  private failed(error: unknown, event: RunTransition): void {
    this.log.error({ err: error, run: event.run.id, to: event.to }, 'a run transition listener failed');
  }
}
