/**
 * The claims of a run phase's workload identity token, as the hosted platform issues them: names
 * (not ids) in `sub`, a single-string `aud`, times in unix seconds on the virtual clock.
 */
import { randomUUID } from 'node:crypto';
import type { RunNames, RunPhase } from '../runs/phase-hooks.js';

export interface WorkloadClaims {
  jti: string;
  iss: string;
  aud: string;
  iat: number;
  nbf: number;
  exp: number;
  sub: string;
  terraform_organization_id: string;
  terraform_organization_name: string;
  terraform_project_id: string;
  terraform_project_name: string;
  terraform_workspace_id: string;
  terraform_workspace_name: string;
  terraform_full_workspace: string;
  terraform_run_id: string;
  terraform_run_phase: RunPhase;
}

export interface ClaimsInput {
  issuer: string;
  audience: string;
  names: RunNames;
  phase: RunPhase;
  runId: string;
  /** The virtual clock's now. */
  issuedAt: Date;
  /** How long the token lives: the phase's timeout. */
  lifetimeMs: number;
}

/** `organization:<org>:project:<project>:workspace:<ws>`, the workspace part of `sub`. */
export function fullWorkspace(names: RunNames): string {
  return `organization:${names.organization.name}:project:${names.project.name}:workspace:${names.workspace.name}`;
}

export function workloadClaims(input: ClaimsInput): WorkloadClaims {
  const iat = Math.floor(input.issuedAt.getTime() / 1000);
  const { names } = input;
  return {
    jti: randomUUID(),
    iss: input.issuer,
    aud: input.audience,
    iat,
    nbf: iat,
    exp: iat + Math.max(1, Math.floor(input.lifetimeMs / 1000)),
    sub: `${fullWorkspace(names)}:run_phase:${input.phase}`,
    terraform_organization_id: names.organization.id,
    terraform_organization_name: names.organization.name,
    terraform_project_id: names.project.id,
    terraform_project_name: names.project.name,
    terraform_workspace_id: names.workspace.id,
    terraform_workspace_name: names.workspace.name,
    terraform_full_workspace: fullWorkspace(names),
    terraform_run_id: input.runId,
    terraform_run_phase: input.phase,
  };
}
