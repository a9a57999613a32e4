import { matchesFilter, parseFilter } from '../../src/control/harness/journal.js';
import type { FinalRunStatus } from '../../src/platform/runs/lifecycle.js';
import type { TestServer } from './app.js';

/**
 * Waits that follow the server's own events instead of sleeping: a test on a busy machine cannot
 * know how long the server takes, only when it says it is done.
 */

/**
 * Resolves once the journal holds a request matching `filter` (the control plane's filter
 * parameters), at once if it already does: the journal's own event, not a poll.
 */
export function untilJournaled(server: TestServer, filter: Record<string, string>): Promise<void> {
  return whenJournaled(server, filter, true);
}

/**
 * Resolves at the next request journaled that matches `filter`, ignoring those already there.
 * Call it before whatever sends the request, and await it after.
 */
export function nextJournaled(server: TestServer, filter: Record<string, string>): Promise<void> {
  return whenJournaled(server, filter, false);
}

function whenJournaled(server: TestServer, filter: Record<string, string>, orAlready: boolean): Promise<void> {
  const { journal } = server.app.harness;
  if (!journal) throw new Error('the request journal is off');
  const wanted = parseFilter(filter);
  return new Promise((resolve) => {
    const stop = journal.subscribe((record) => {
      if (!matchesFilter(record, wanted)) return;
      stop();
      resolve();
    });
    // Subscribed first, so a request journaled between the two is not missed.
    if (orAlready && journal.count(wanted) > 0) {
      stop();
      resolve();
    }
  });
}

/**
 * Resolves once the run's status is one of `statuses`, at once if it already is: the engine's
 * transition event, not a poll. `current` reads the status (subscribed first, so a change between
 * the two is not missed); it answers the status reached.
 */
export async function untilRunStatusIn(
  server: TestServer,
  runId: string,
  statuses: readonly string[],
  current: () => Promise<string>,
): Promise<string> {
  let stop = () => {};
  const reached = new Promise<string>((resolve) => {
    stop = server.app.platform.services.runs.engine.onTransition((event) => {
      if (event.run.id === runId && statuses.includes(event.to)) resolve(event.to);
    });
  });
  try {
    const now = await current();
    return statuses.includes(now) ? now : await reached;
  } finally {
    stop();
  }
}

/**
 * The id of the next run created (in the workspace, if one is given): the engine's creation event.
 * Call it before whatever creates the run, and await it after.
 */
export function nextRunCreated(server: TestServer, workspaceId?: string): Promise<string> {
  return new Promise((resolve) => {
    const stop = server.app.platform.services.runs.engine.onTransition((event) => {
      if (event.from !== null || (workspaceId !== undefined && event.run.workspaceId !== workspaceId)) return;
      stop();
      resolve(event.run.id);
    });
  });
}

/** Every status a run ends in (a record, so a status added to the type must be added here). */
const FINAL: Record<FinalRunStatus, true> = {
  applied: true,
  planned_and_finished: true,
  discarded: true,
  canceled: true,
  force_canceled: true,
  errored: true,
};
export const FINAL_STATUSES = Object.keys(FINAL) as FinalRunStatus[];

/**
 * The journal's server-sent events from a server in another process (`/_emulator/requests/stream`
 * with the control plane's filter parameters), for tests that cannot subscribe in-process.
 * `connected` resolves once the stream is open (requests after that are seen); `next` resolves with
 * the next matching entry; `close` ends the stream.
 */
export async function watchJournal(baseUrl: string, filter: Record<string, string>) {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}/_emulator/requests/stream?${new URLSearchParams(filter)}`, { signal: abort.signal });
  if (response.status !== 200 || !response.body) throw new Error(`the journal stream answered ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const readUntil = async (found: () => boolean) => {
    while (!found()) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`the journal stream ended:\n${text}`);
      text += decoder.decode(value, { stream: true });
    }
  };
  await readUntil(() => text.includes(': connected\n\n'));
  text = text.slice(text.indexOf(': connected\n\n') + ': connected\n\n'.length);
  return {
    /** The next entry the stream sends (as `GET /_emulator/requests` shows it). */
    async next(): Promise<Record<string, unknown>> {
      const event = /event: request\ndata: (.*)\n\n/;
      await readUntil(() => event.test(text));
      const match = event.exec(text) as RegExpExecArray;
      text = text.slice(match.index + match[0].length);
      return JSON.parse(match[1] as string) as Record<string, unknown>;
    },
    close: () => abort.abort(),
  };
}
