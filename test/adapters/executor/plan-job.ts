import type { PlanJob } from '../../../src/adapters/executor/executor.js';
import { tarball } from '../../platform/registry/archives.js';

/**
 * A plan job for `runId` whose slug holds one `main.tf` with `main`: no variables, a normal plan
 * with refresh, nothing targeted; `extra` overrides any field.
 */
export async function planJob(runId: string, main: string, state: string | null = null, extra: Partial<PlanJob> = {}): Promise<PlanJob> {
  return {
    runId,
    slug: await tarball([{ name: 'main.tf', content: main }]),
    state,
    variables: [],
    environment: [],
    isDestroy: false,
    refresh: true,
    refreshOnly: false,
    targetAddrs: [],
    replaceAddrs: [],
    ...extra,
  };
}
