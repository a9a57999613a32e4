import type { FastifyRequest } from 'fastify';
import type { OrganizationRow } from '../auth/principal.js';
import { WorkspacePermissions } from '../auth/workspace-permissions.js';
import type { PlatformContext } from '../context.js';
import { wireBehaviours } from '../dialect-behaviours.js';
import { IncludeRegistry } from '../jsonapi/include.js';
import { renderOptions } from '../workspaces/documents.js';
import { findWorkspaces } from '../workspaces/repo.js';
import { attachmentsOfTasks, type RunTaskRow, type WorkspaceTaskRow } from './repo.js';
import { runTaskResource, workspaceTaskResource } from './resource.js';
import { globalRunTasksEntitled } from './service.js';

interface IncludeSource {
  context: PlatformContext;
  request: FastifyRequest;
  organization: OrganizationRow;
  attachments: WorkspaceTaskRow[];
}

/** What a run task can include, declared once. */
export const RUN_TASK_INCLUDES = new IncludeRegistry<IncludeSource>({
  workspace_tasks: ({ attachments }) => attachments.map(workspaceTaskResource),
  // The attachments come along, as the real service includes them on the way to their workspaces.
  'workspace_tasks.workspace': ({ context, request, organization, attachments }) => {
    const { db } = context.store;
    const permissions = new WorkspacePermissions(db);
    const scope = permissions.scope(request.principal, organization.id);
    const ids = [...new Set(attachments.map((row) => row.workspaceId))];
    const levels = permissions.levels(scope, ids);
    // Only workspaces the caller may read; Manage Run Tasks alone does not show workspace settings.
    const readable = findWorkspaces(db, ids).filter((workspace) => levels.get(workspace.id));
    return [
      ...attachments.map(workspaceTaskResource),
      ...context.services.workspaceViews.render(scope, organization, readable, renderOptions(context, request)),
    ];
  },
});
/** Tasks of one organization with their attachments and whatever `include` asked for. */
export function renderRunTasks(
  context: PlatformContext,
  request: FastifyRequest,
  organization: OrganizationRow,
  tasks: RunTaskRow[],
  include: Set<string>,
) {
  const { db } = context.store;
  const behaviours = wireBehaviours(context.config.dialect);
  const attachments = attachmentsOfTasks(
    db,
    tasks.map((task) => task.id),
  );
  const globalEntitled = globalRunTasksEntitled(organization);
  const data = tasks.map((task) =>
    runTaskResource({ task, organizationName: organization.name, attachments: attachments.get(task.id) ?? [], globalEntitled }, behaviours),
  );
  const included = RUN_TASK_INCLUDES.collect(include, { context, request, organization, attachments: [...attachments.values()].flat() });
  return { data, included };
}
