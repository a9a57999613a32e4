import type { DbOrTx } from '../../store/store.js';
import { DEFAULT_PROJECT_NAME } from '../default-project.js';
import { findProject } from '../projects/repo.js';
import type { RunNames } from '../runs/phase-hooks.js';
import { findWorkspaceWithOrganization } from '../workspaces/repo.js';

/** The organization, project and workspace a workspace's tokens are named after; undefined when it is gone. */
export function namesOfWorkspace(db: DbOrTx, workspaceId: string): RunNames | undefined {
  const found = findWorkspaceWithOrganization(db, workspaceId);
  if (!found) return undefined;
  const { workspace, organization } = found;
  const project = findProject(db, workspace.projectId);
  return {
    organization: { id: organization.id, name: organization.name },
    project: { id: workspace.projectId, name: project?.name ?? DEFAULT_PROJECT_NAME },
    workspace: { id: workspace.id, name: workspace.name },
  };
}
