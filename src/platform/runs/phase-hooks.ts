/**
 * What may take part in the start of a run's plan or apply phase without the engine knowing about
 * it: dynamic provider credentials mint a workload identity token and log in to the secrets API,
 * later policy checks and notifications hook in beside them. A hook answers with a verdict; the
 * engine alone moves the run (a refused phase errors the run with the hook's message in its log).
 */
import type { RunVariable } from '../../adapters/executor/index.js';
import type { RunRow } from './repo.js';

export type RunPhase = 'plan' | 'apply';

/** The names a run's workload identity is made of (claims, subjects, log lines). */
export interface RunNames {
  organization: { id: string; name: string };
  project: { id: string; name: string };
  workspace: { id: string; name: string };
}

/** What a hook sees when a phase starts. */
export interface PhaseStart {
  run: RunRow;
  phase: RunPhase;
  names: RunNames;
  /** The job's environment variables after precedence (variable sets, workspace, run), by key. */
  environment: ReadonlyMap<string, RunVariable>;
  /** The job's Terraform input variables after precedence, by key. */
  variables: ReadonlyMap<string, RunVariable>;
  /** Appends lines to the phase's log (the platform's log, as the run shows it). */
  log(text: string): void;
  /**
   * Writes a file this phase hands to Terraform (a token file, a CA file): mode 0600, owned by the
   * user Terraform runs as, in the run's private credentials directory. The path is the same in
   * the plan and the apply, since a saved plan keeps the variables that name such files. Returns
   * the file's absolute path; the directory and its files are removed when the phase ends.
   */
  writeCredentialFile(name: string, text: string): Promise<string>;
  signal: AbortSignal;
}

/** A hook's answer: go on with extra environment, variables and hidden values, or error the run. */
export type PhaseVerdict =
  | {
      kind: 'proceed';
      /** Added to the phase's environment (a key the job already has is replaced). */
      environment?: RunVariable[];
      /** Added to the phase's Terraform input variables (a key the job already has is replaced). */
      variables?: RunVariable[];
      /** Values no log, journal or store may show (tokens): the phase's log sink hides them. */
      secrets?: string[];
      /** Called once when the phase ends, however it ends (revoke the token, remove files). */
      finish?: () => Promise<void>;
    }
  | { kind: 'error'; message: string };

export interface PhaseHook {
  readonly name: string;
  start(phase: PhaseStart): Promise<PhaseVerdict>;
}
