import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../runtime.js';
import { FaultRules } from './faults.js';
import { faultRoutes } from './fault-routes.js';
import type { HarnessParts } from './hooks.js';
import { Journal } from './journal.js';
import { journalRoutes } from './journal-routes.js';
import { defaultSnapshotDirectory, Snapshots } from './snapshots.js';
import { snapshotRoutes } from './snapshot-routes.js';
import { Subjects } from './subject.js';
import { inspectorRoutes } from './ui.js';

/** The test harness of one server: request journal, fault rules, snapshots. */
export interface Harness extends HarnessParts {
  readonly snapshots: Snapshots;
}

/** `afterRestore` drops whatever the server keeps in memory about the store (the same as a reset does). */
export function createHarness(runtime: Runtime, afterRestore: () => void): Harness {
  const { config, store, clock } = runtime;
  return {
    journal: config.journalSize > 0 ? new Journal(config.journalSize) : null,
    faults: new FaultRules(),
    subjects: new Subjects(store.db),
    snapshots: new Snapshots(
      store,
      clock,
      config.snapshotDir ?? defaultSnapshotDirectory(store),
      afterRestore,
      config.snapshotImportLimitMb * 1024 * 1024,
    ),
  };
}

/** The harness endpoints under `/_emulator`. */
export async function harnessRoutes(app: FastifyInstance, harness: Harness, runtime: Runtime): Promise<void> {
  journalRoutes(app, harness.journal);
  faultRoutes(app, harness.faults, runtime.clock);
  await snapshotRoutes(app, harness.snapshots);
  inspectorRoutes(app, runtime);
}
