/**
 * A run's committed status changes, for whoever follows runs without driving them (notification
 * deliveries). A listener is told after the change's transaction has committed; whatever it does
 * or throws, the run goes on (errors, also of an asynchronous listener, are logged and dropped).
 */
import type { FastifyBaseLogger } from 'fastify';
import { Listeners, type Listener } from '../../core/listeners.js';
import type { RunStatus } from './lifecycle.js';
import type { RunRow } from './repo.js';

export interface RunTransition {
  /** The run as it is after the change. */
  run: RunRow;
  /** The status it left; null when the run was just created (`pending`). */
  from: RunStatus | null;
  to: RunStatus;
}

export type TransitionListener = Listener<RunTransition>;

export class TransitionEvents extends Listeners<RunTransition> {
  constructor(log: FastifyBaseLogger) {
    super(log, 'a run transition listener failed', (event) => ({ run: event.run.id, to: event.to }));
  }
}
