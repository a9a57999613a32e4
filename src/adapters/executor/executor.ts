/**
 * How a run's plan and apply are carried out. Two implementations: the real `terraform` CLI in a
 * throwaway directory (terraform.ts) and a simulated one that plans from the parsed configuration
 * (simulated.ts). The run state machine, queue, logs and state versions see only this interface.
 */
import type { RunUser } from './run-user.js';

export type ExecutorKind = 'terraform' | 'simulated';

export interface RunVariable {
  key: string;
  value: string;
  /** The value is an HCL expression rather than a string. */
  hcl: boolean;
  sensitive: boolean;
}

export interface PlanJob {
  /** For log lines and ids only. */
  runId: string;
  /** The configuration version's `.tar.gz` slug. */
  slug: Buffer;
  /** The workspace's current state file (JSON text), or null for a workspace with none. */
  state: string | null;
  /** Terraform variables: workspace ones, then run variables overriding by key. */
  variables: RunVariable[];
  /** Environment variables for the terraform process (workspace `env` variables). */
  environment: RunVariable[];
  isDestroy: boolean;
  refresh: boolean;
  refreshOnly: boolean;
  targetAddrs: string[];
  replaceAddrs: string[];
  /**
   * Structured run output (the workspace's `structured-run-output-enabled`): the plan and apply
   * logs are the machine-readable UI's JSON lines after the plain header; absent or false: plain text.
   */
  structured?: boolean;
}

/** Receives log text as it is produced; the platform stores it and serves it from `log-read-url`. */
export type LogSink = (text: string) => void;

export interface ChangeSummary {
  additions: number;
  changes: number;
  destructions: number;
  imports: number;
}

export type PhaseStatus = 'finished' | 'errored' | 'canceled';

export interface PlanOutcome {
  status: PhaseStatus;
  summary: ChangeSummary;
  hasChanges: boolean;
  /** The plan as `terraform show -json` prints it; null when planning failed. */
  json: unknown;
  /** The redacted plan with provider schemas (structured.ts, `redactedPlan`); null when planning failed. */
  redactedJson?: unknown;
  /** Present when the plan finished: what an apply of exactly this plan needs. */
  prepared?: PreparedApply;
}

export interface ApplyOutcome {
  status: PhaseStatus;
  summary: ChangeSummary;
  /** The state file after the apply (JSON text); null when nothing was written. */
  state: string | null;
}

/**
 * What the platform adds to one phase only (its hooks' credentials): the plan's extras are not the
 * apply's. Keys replace the job's; `secrets` never reach the phase's log.
 */
export interface PhaseExtras {
  environment: RunVariable[];
  variables: RunVariable[];
  secrets: string[];
}

export const NO_EXTRAS: PhaseExtras = { environment: [], variables: [], secrets: [] };

/** The job's variables with the phase's extras replacing same keys. */
export function withExtras(base: readonly RunVariable[], extra: readonly RunVariable[]): RunVariable[] {
  if (extra.length === 0) return [...base];
  return [...new Map([...base, ...extra].map((variable) => [variable.key, variable])).values()];
}

/** A finished plan kept for its apply; dispose it when the run ends without one. */
export interface PreparedApply {
  /** Applies the plan; `extras` are the apply phase's own (the plan's are not carried over). */
  apply(log: LogSink, signal: AbortSignal, extras?: PhaseExtras): Promise<ApplyOutcome>;
  dispose(): Promise<void>;
}

export interface Executor {
  readonly kind: ExecutorKind;
  /** The user Terraform runs as when that is not the server's own user (files handed to a run must be theirs). */
  readonly runUser: RunUser | null;
  /** Plans `job`; never throws for a failing configuration (that is an `errored` outcome with a log). */
  plan(job: PlanJob, log: LogSink, signal: AbortSignal, extras?: PhaseExtras): Promise<PlanOutcome>;
  /** Removes whatever is left on disk (working directories); called on reset and shutdown. */
  close(): Promise<void>;
}

export const NO_CHANGES: ChangeSummary = { additions: 0, changes: 0, destructions: 0, imports: 0 };

/** Wraps a sink so that no sensitive value reaches a log the platform shows. */
export function redactingSink(sink: LogSink, secrets: string[]): LogSink {
  const hidden = secrets.filter((secret) => secret.length >= 3).sort((a, b) => b.length - a.length);
  if (hidden.length === 0) return sink;
  return (text) => sink(hidden.reduce((out, secret) => out.split(secret).join('(sensitive value)'), text));
}

/** At most `size` executions at once; later ones wait their turn in arrival order. */
export class ExecutionSlots {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly size: number) {}

  get busy(): number {
    return this.running;
  }

  async acquire(): Promise<() => void> {
    if (this.running >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      // The slot passes straight to the next waiter, so `running` stays the same.
      if (next) next();
      else this.running -= 1;
    };
  }
}
