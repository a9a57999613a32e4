import type { PlanJob, RunVariable } from '../../adapters/executor/index.js';
import type { DbOrTx } from '../../store/store.js';
import type { ConfigurationVersionService } from '../configuration-versions/service.js';
import { defaultProjectId } from '../default-project.js';
import { findOrganizationById } from '../organizations/repo.js';
import { findProject } from '../projects/repo.js';
import type { StateVersionService } from '../state-versions/service.js';
import type { VariableSetService } from '../variable-sets/service.js';
import { findWorkspace } from '../workspaces/repo.js';
import type { RunNames } from './phase-hooks.js';
import type { RunRow } from './repo.js';

/** The services a run's job is read through. */
export interface JobSources {
  configurationVersions: Pick<ConfigurationVersionService, 'archive'>;
  stateVersions: Pick<StateVersionService, 'currentStateText'>;
  variableSets: Pick<VariableSetService, 'effectiveVariables'>;
}

/**
 * What the executor needs: the slug, the current state, and the variables in force for the
 * workspace after precedence (variable sets and the workspace's own, precedence.ts), with the
 * run's own Terraform variables winning over all of them.
 */
export function buildJob(sources: JobSources, run: RunRow): PlanJob {
  const slug = sources.configurationVersions.archive(run.configurationVersionId);
  if (!slug) throw new Error('the configuration version has no uploaded configuration');
  const terraform = new Map<string, RunVariable>();
  const environment = new Map<string, RunVariable>();
  for (const variable of sources.variableSets.effectiveVariables(run.workspaceId)) {
    const { key, value, hcl, sensitive } = variable;
    (variable.category === 'env' ? environment : terraform).set(key, { key, value, hcl, sensitive });
  }
  for (const variable of run.variables)
    terraform.set(variable.key, { key: variable.key, value: variable.value, hcl: true, sensitive: false });
  return {
    runId: run.id,
    slug,
    state: sources.stateVersions.currentStateText(run.workspaceId),
    variables: [...terraform.values()],
    environment: [...environment.values()],
    isDestroy: run.isDestroy,
    refresh: run.refresh,
    refreshOnly: run.refreshOnly,
    targetAddrs: run.targetAddrs,
    replaceAddrs: run.replaceAddrs,
  };
}

/** Whether the run's logs are structured: its workspace's `structured-run-output-enabled` (a deleted workspace's run: plain). */
export function structuredOutput(db: DbOrTx, run: RunRow): boolean {
  return findWorkspace(db, run.workspaceId)?.structuredRunOutputEnabled ?? false;
}

/** The organization, project and workspace a run belongs to, by id and name (for phase hooks). */
export function runNames(db: DbOrTx, run: RunRow): RunNames {
  const workspace = findWorkspace(db, run.workspaceId);
  const organization = findOrganizationById(db, run.organizationId);
  // A workspace deleted under a running run leaves only ids, and the organization's default project.
  const projectId = workspace ? workspace.projectId : defaultProjectId(run.organizationId);
  const project = findProject(db, projectId);
  return {
    organization: { id: run.organizationId, name: organization?.name ?? run.organizationId },
    project: { id: projectId, name: project?.name ?? 'Default Project' },
    workspace: { id: run.workspaceId, name: workspace?.name ?? run.workspaceId },
  };
}
