import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { addGoals, cost, DOC_BASELINE } from '../goals.js';
import { call, headers } from '../platform-setup.js';
import type { BenchTarget, Scenario } from '../scenario.js';

/**
 * The inspector's run view (what a run link the CLI prints opens, refreshed every 3 seconds while
 * the run works): one finished run with its timeline, events and both logs, read as the page reads it.
 */
const RUN_VIEW = 'GET /_emulator/ui/runs/:id (finished run, both logs)';

async function tarball(content: string): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  pack.entry({ name: 'main.tf' }, content);
  pack.finalize();
  await ended;
  return gzipSync(Buffer.concat(chunks));
}

/** A workspace with one run that has finished (whichever executor the bench's understudy uses). */
async function finishedRun(target: BenchTarget): Promise<string> {
  const workspace = await call(target, 'POST', '/api/v2/organizations/understudy/workspaces', {
    data: { type: 'workspaces', attributes: { name: 'bench-run-view', 'auto-apply': true } },
  });
  const version = await call<{ data: { attributes: { 'upload-url': string } } }>(
    target,
    'POST',
    `/api/v2/workspaces/${workspace.data.id}/configuration-versions`,
    { data: { type: 'configuration-versions', attributes: { 'auto-queue-runs': false } } },
  );
  const body = new Uint8Array(await tarball('resource "terraform_data" "a" {\n  count = 20\n  input = count.index\n}\n'));
  const uploaded = await fetch(version.data.attributes['upload-url'], { method: 'PUT', body });
  if (uploaded.status !== 200) throw new Error(`the configuration upload answered ${uploaded.status}`);
  const run = await call(target, 'POST', '/api/v2/runs', {
    data: { type: 'runs', relationships: { workspace: { data: { type: 'workspaces', id: workspace.data.id } } } },
  });
  for (let tries = 0; tries < 600; tries++) {
    const shown = await fetch(`${target.baseUrl}/api/v2/runs/${run.data.id}`, { headers: headers(target) });
    const status = ((await shown.json()) as { data: { attributes: { status: string } } }).data.attributes.status;
    if (status === 'applied') return run.data.id;
    if (['errored', 'canceled', 'discarded'].includes(status)) throw new Error(`the bench run ended ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the bench run did not finish');
}

export const scenarios: Scenario[] = [
  {
    name: RUN_VIEW,
    setup: async (target) => ({ path: `/_emulator/ui/runs/${await finishedRun(target)}` }),
  },
];

// A page a person keeps open (it refreshes every 3 seconds), read with a handful of queries: the
// goal guards against it growing with the store or the log, not for API-like speed.
addGoals(cost('inspector run view vs document baseline', RUN_VIEW, DOC_BASELINE, 15));
