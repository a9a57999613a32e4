import type { Runtime } from '../runtime.js';
import type { Backend } from './framework/types.js';
import type { MountTable } from './mounts/mount-table.js';

/** Builds an engine's path table for one mount. */
export type EngineFactory = (context: SecretsContext) => Backend;

export interface SecretsContext extends Runtime {
  readonly mounts: MountTable;
  /** Engines that can be mounted, by type (`cubbyhole`, `pki`, `database`, …). */
  readonly engines: ReadonlyMap<string, EngineFactory>;
}
