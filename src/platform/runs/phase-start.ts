import type { FastifyBaseLogger } from 'fastify';
import {
  redactingSink,
  type LogSink,
  type PhaseExtras,
  type PlanJob,
  type RunUser,
  type RunVariable,
} from '../../adapters/executor/index.js';
import { CredentialFiles } from './credential-files.js';
import type { PhaseHook, PhaseStart, RunNames, RunPhase } from './phase-hooks.js';
import type { RunRow } from './repo.js';

/** A phase once its hooks answered: what they add, and how to end it. */
export interface OpenedPhase {
  /** The message of the hook that refused the phase; null when every hook let it proceed. */
  refused: string | null;
  /** What the hooks add to this phase's job (later hooks replace earlier ones' keys). */
  extras: PhaseExtras;
  /** The phase's log with every value a hook named secret hidden. */
  log: LogSink;
  /** Awaits each proceeding hook's `finish`, then removes the credential files. Call once, when the phase ends. */
  close(): Promise<void>;
}

export interface PhaseOpening {
  run: RunRow;
  phase: RunPhase;
  /** Read only when there is a hook to show them to. */
  names: () => RunNames;
  job: PlanJob;
  log: LogSink;
  signal: AbortSignal;
  /** Who Terraform runs as, when not the server's user: credential files are made theirs. */
  runUser: RunUser | null;
}

const byKey = (variables: readonly RunVariable[]) => new Map(variables.map((variable) => [variable.key, variable]));

/**
 * The hooks every plan and apply phase starts with (phase-hooks.ts), asked in the order they were
 * added, each seeing what the earlier ones added. A hook that throws refuses the phase with its
 * error's message; the first refusal ends the asking.
 */
export class PhaseHooks {
  private readonly hooks: PhaseHook[] = [];

  constructor(private readonly log: FastifyBaseLogger) {}

  add(hook: PhaseHook): void {
    this.hooks.push(hook);
  }

  async open(opening: PhaseOpening): Promise<OpenedPhase> {
    const secrets: string[] = [];
    // What hooks log while they start is held until all have answered: a line may show a value
    // whose hook names it secret only in its verdict. Afterwards lines go out at once, hidden alike.
    let held: string[] | null = [];
    const log: LogSink = (text) => (held ? held.push(text) : redactingSink(opening.log, secrets)(text));
    const opened = (refused: string | null): OpenedPhase => {
      const lines = held ?? [];
      held = null;
      if (lines.length) log(lines.join(''));
      return { refused, extras, log, close };
    };
    const extras: PhaseExtras = { environment: [], variables: [], secrets };
    const finishers: (() => Promise<void>)[] = [];
    const credentials = new CredentialFiles(opening.run.id, opening.runUser);
    let closed = false;
    const close = async () => {
      if (closed) return;
      closed = true;
      for (const finish of finishers.reverse()) {
        try {
          await finish();
        } catch (error) {
          this.log.error({ err: error, run: opening.run.id, phase: opening.phase }, 'a phase hook could not finish');
        }
      }
      await credentials
        .remove()
        .catch((error: unknown) => this.log.error({ err: error, run: opening.run.id }, 'credential files could not be removed'));
    };
    if (this.hooks.length === 0) return opened(null);

    const environment = byKey(opening.job.environment);
    const variables = byKey(opening.job.variables);
    const start: PhaseStart = {
      run: opening.run,
      phase: opening.phase,
      names: opening.names(),
      environment,
      variables,
      log,
      writeCredentialFile: (name, text) => credentials.write(name, text),
      signal: opening.signal,
    };
    for (const hook of this.hooks) {
      let verdict;
      try {
        verdict = await hook.start(start);
      } catch (error) {
        verdict = { kind: 'error' as const, message: `${hook.name}: ${(error as Error).message}` };
      }
      if (verdict.kind === 'error') return opened(verdict.message);
      if (verdict.finish) finishers.push(verdict.finish);
      secrets.push(...(verdict.secrets ?? []));
      for (const variable of verdict.environment ?? []) environment.set(variable.key, variable);
      for (const variable of verdict.variables ?? []) variables.set(variable.key, variable);
      extras.environment = merge(extras.environment, verdict.environment);
      extras.variables = merge(extras.variables, verdict.variables);
    }
    return opened(null);
  }
}

function merge(current: RunVariable[], added: RunVariable[] | undefined): RunVariable[] {
  if (!added?.length) return current;
  return [...byKey([...current, ...added]).values()];
}
