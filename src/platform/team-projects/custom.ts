import { unprocessable } from '../../core/errors.js';
import type { CustomProjectAccess, CustomProjectWorkspaceAccess } from '../../store/schema/workspaces.js';
import type { Attributes } from '../jsonapi/body.js';

/** What each choice-valued permission of `project-access` and `workspace-access` may be. */
const PROJECT_CHOICES: Record<keyof CustomProjectAccess, readonly string[]> = {
  settings: ['read', 'update', 'delete'],
  teams: ['none', 'read', 'manage'],
  'variable-sets': ['none', 'read', 'write'],
};
const WORKSPACE_CHOICES = {
  runs: ['read', 'plan', 'apply'],
  'sentinel-mocks': ['none', 'read'],
  'state-versions': ['none', 'read-outputs', 'read', 'write'],
  variables: ['none', 'read', 'write'],
} as const;
const WORKSPACE_FLAGS = ['create', 'locking', 'move', 'delete', 'run-tasks', 'policy-overrides'] as const;

export interface CustomDocuments {
  project: CustomProjectAccess;
  workspace: CustomProjectWorkspaceAccess;
}

/**
 * A fixed level decides every detailed permission itself; sending `project-access` or
 * `workspace-access` with one is refused rather than silently dropped, as team workspace access does.
 */
export function refuseCustomWithFixedLevel(access: string, attributes: Attributes): void {
  if (access === 'custom') return;
  for (const name of ['project-access', 'workspace-access']) {
    const value = attributes.object(name);
    if (value === undefined || value === null || Object.keys(value).length === 0) continue;
    throw unprocessable(
      `${name} is read-only when access level is '${access}'; use the 'custom' access level to set this attribute.`,
      `/data/attributes/${name}`,
    );
  }
}

function choice(attributes: Attributes, name: string, choices: readonly string[]): string | undefined {
  const pattern = new RegExp(`^(?:${choices.join('|')})$`);
  return attributes.string(name, { pattern, patternText: `must be one of ${choices.join(', ')}` }) ?? undefined;
}

/** The custom permissions the body sets laid over `base`; every value is checked against its choices. */
export function readCustomDocuments(attributes: Attributes, base: CustomDocuments): CustomDocuments {
  const project: Record<string, unknown> = { ...base.project };
  const workspace: Record<string, unknown> = { ...base.workspace };
  const projectAccess = attributes.nested('project-access');
  if (projectAccess) {
    for (const [name, choices] of Object.entries(PROJECT_CHOICES)) {
      const value = choice(projectAccess, name, choices);
      if (value !== undefined) project[name] = value;
    }
  }
  const workspaceAccess = attributes.nested('workspace-access');
  if (workspaceAccess) {
    for (const [name, choices] of Object.entries(WORKSPACE_CHOICES)) {
      const value = choice(workspaceAccess, name, choices);
      if (value !== undefined) workspace[name] = value;
    }
    for (const name of WORKSPACE_FLAGS) {
      const value = workspaceAccess.boolean(name);
      if (value !== undefined) workspace[name] = value;
    }
  }
  return { project: project as unknown as CustomProjectAccess, workspace: workspace as unknown as CustomProjectWorkspaceAccess };
}
