import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { platform, type TestServer } from '../helpers/app.js';
import { untilRunStatusIn } from '../helpers/events.js';

export { untilJournaled } from '../helpers/events.js';

/** The `cloud` block naming a workspace of the seed's organization at the test host. */
export const cloudBlock = (workspace: string) => `terraform {
  cloud {
    hostname     = "understudy.test"
    organization = "understudy"
    workspaces { name = "${workspace}" }
  }
}`;

/** Everything a child prints on stdout and stderr, and promises that resolve when it prints something or exits. */
export class Transcript {
  text = '';
  readonly exited: Promise<number | null>;
  private readonly waiters: { pattern: RegExp | string; resolve: (match: RegExpMatchArray) => void }[] = [];

  constructor(child: ChildProcessWithoutNullStreams) {
    const take = (chunk: Buffer) => {
      this.text += chunk.toString('utf8');
      for (const waiter of [...this.waiters]) {
        const match = this.find(waiter.pattern);
        if (match) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(match);
        }
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    this.exited = new Promise((resolve) => child.on('close', (code) => resolve(code)));
  }

  /** Resolves once the output holds `pattern`; rejects if the child exits first (with what it printed). */
  until(pattern: RegExp | string): Promise<RegExpMatchArray> {
    const found = this.find(pattern);
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      this.waiters.push({ pattern, resolve });
      void this.exited.then(() => reject(new Error(`the CLI exited without printing ${String(pattern)}:\n${this.text}`)));
    });
  }

  private find(pattern: RegExp | string): RegExpMatchArray | null {
    if (typeof pattern !== 'string') return pattern.exec(this.text);
    return this.text.includes(pattern) ? [pattern] : null;
  }
}

export async function runStatus(server: TestServer, runId: string): Promise<string> {
  const found = await platform(server, 'GET', `/runs/${runId}`);
  if (found.status !== 200) throw new Error(`GET /runs/${runId} answered ${found.status}`);
  return found.body.data.attributes.status as string;
}

/** How many journal entries match (the control plane's `requests/count`). */
export async function journalCount(server: TestServer, filter: Record<string, string>): Promise<number> {
  const response = await fetch(`${server.baseUrl}/_emulator/requests/count?${new URLSearchParams(filter)}`);
  return ((await response.json()) as { count: number }).count;
}

/** Resolves once the run's status is `status`, at once if it already is: the engine's transition event, not a poll. */
export async function untilRunStatus(server: TestServer, runId: string, status: string): Promise<void> {
  await untilRunStatusIn(server, runId, [status], () => runStatus(server, runId));
}

/** Advances a run held by the manual progression until it reaches one of `statuses`; answers that status. */
export async function advanceUntil(server: TestServer, runId: string, statuses: string[]): Promise<string> {
  for (;;) {
    const status = await runStatus(server, runId);
    if (statuses.includes(status)) return status;
    const advanced = await fetch(`${server.baseUrl}/_emulator/runs/${runId}/advance`, { method: 'POST' });
    if (advanced.status !== 200) throw new Error(`advancing ${runId} in ${status} answered ${advanced.status}`);
  }
}
