import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { ControllableClock } from './core/clock.js';
import type { Scheduler } from './core/scheduler.js';
import type { Store } from './store/store.js';

/** What every tree is built from: passed to each plugin, never reached for globally. */
export interface Runtime {
  readonly config: Config;
  readonly store: Store;
  readonly clock: ControllableClock;
  readonly log: FastifyBaseLogger;
  /** Timed work (lease and token expiry, rotations); the clock endpoint advances through it. */
  readonly scheduler: Scheduler;
  /** The OIDC issuer of workload identity tokens (server/address.ts `publicUrl`), once the port is known. */
  readonly publicUrl: () => string;
}
