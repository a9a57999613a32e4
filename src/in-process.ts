/**
 * The in-process API's server half, loaded by `startUnderstudy` (src/index.ts) on its first call
 * so that importing the package loads none of the server.
 */
import { buildApp } from './app.js';
import { loadConfig, type Config } from './config.js';
import { parseDurationMs } from './core/duration.js';
import { parseRule, ruleView } from './control/harness/faults.js';
import { journalEntry, parseFilter } from './control/harness/journal.js';
import type { RequestEntry, RequestFilter, Understudy } from './index.js';
import { logDestination } from './logging.js';
import { clientEnvironment, clientUrl } from './server/address.js';

function filterQuery(filter: RequestFilter): Record<string, string> {
  const query: Record<string, string> = {};
  const { since, tokenAccessor, ...rest } = filter;
  for (const [name, value] of Object.entries(rest)) if (value !== undefined) query[name] = String(value);
  if (since !== undefined) query['since'] = since instanceof Date ? since.toISOString() : String(since);
  if (tokenAccessor !== undefined) query['token-accessor'] = tokenAccessor;
  return query;
}

/** What `startUnderstudy` does once its options are environment variables. */
export async function startInProcess(environment: Record<string, string>): Promise<Understudy> {
  const config: Config = loadConfig(environment);
  const app = await buildApp(config, { logTo: config.logLevel === 'silent' ? false : await logDestination(config) });
  await app.fastify.listen({ host: config.host, port: config.port });
  const { port } = app.fastify.server.address() as { port: number };
  const url = clientUrl(config, port, app.tls);
  const { harness, runtime } = app;
  const view = (rule: ReturnType<typeof parseRule>) => ruleView(rule) as Record<string, unknown> & { id: string };
  return {
    url,
    env: clientEnvironment(config, url, app.tls),
    tokens: { admin: config.adminToken, root: config.rootToken, control: config.controlToken },
    reset: async () => app.reset(),
    snapshot: (name, snapshotOptions = {}) => harness.snapshots.create(name, snapshotOptions.replace === true),
    restore: async (name, restoreOptions = {}) => harness.snapshots.restore(name, restoreOptions.clock === true),
    requests: (filter = {}) => {
      if (harness.journal === null) throw new Error('the request journal is off (journalSize 0)');
      return harness.journal.find(parseFilter(filterQuery(filter))).map((record) => journalEntry(record) as unknown as RequestEntry);
    },
    faults: {
      add: (input) => {
        const rule = parseRule(input, runtime.clock.now());
        harness.faults.add(rule);
        return view(rule);
      },
      list: () => harness.faults.list().map(view),
      remove: (id) => harness.faults.remove(id),
      clear: () => void harness.faults.clear(),
    },
    clock: {
      now: () => runtime.clock.now(),
      advance: async (duration) => {
        await runtime.scheduler.advanceTo(runtime.clock.nowMs() + parseDurationMs(duration));
      },
      set: async (time, setOptions = {}) => {
        await runtime.scheduler.advanceTo(new Date(time).getTime(), setOptions.force === true);
      },
    },
    stop: () => app.fastify.close(),
  };
}
