import { isoTimestamp } from '../../core/clock.js';
import type { WireBehaviours } from '../dialect-behaviours.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { RunTaskRow, WorkspaceTaskRow } from './repo.js';

export interface RunTaskView {
  task: RunTaskRow;
  organizationName: string;
  attachments: readonly WorkspaceTaskRow[];
  /** Whether the organization is entitled to global run tasks; without it there is no global configuration. */
  globalEntitled: boolean;
}

/** The `tasks` resource; `hmac-key` is write-only and always null here. */
export function runTaskResource(view: RunTaskView, behaviours: WireBehaviours): ResourceObject {
  const { task } = view;
  return {
    id: task.id,
    type: 'tasks',
    attributes: {
      name: task.name,
      url: task.url,
      description: task.description,
      category: task.category,
      'hmac-key': null,
      enabled: task.enabled,
      'global-configuration': view.globalEntitled ? task.globalConfiguration : null,
      'created-at': isoTimestamp(task.createdAt),
    },
    relationships: {
      organization: { data: { id: view.organizationName, type: 'organizations' } },
      [behaviours.runTaskAttachmentsRelationship]: { data: view.attachments.map((row) => ({ id: row.id, type: 'workspace-tasks' })) },
      'agent-pool': { data: task.agentPoolId ? { id: task.agentPoolId, type: 'agent-pools' } : null },
    },
    links: { self: `/api/v2/tasks/${task.id}` },
  };
}

/** The `workspace-tasks` resource; `stage` is the first of `stages`, as the deprecated field always was. */
export function workspaceTaskResource(row: WorkspaceTaskRow): ResourceObject {
  return {
    id: row.id,
    type: 'workspace-tasks',
    attributes: {
      'enforcement-level': row.enforcementLevel,
      stage: row.stages[0] ?? 'post_plan',
      stages: row.stages,
      enabled: row.enabled,
      'created-at': isoTimestamp(row.createdAt),
    },
    relationships: {
      task: { data: { id: row.taskId, type: 'tasks' }, links: { related: `/api/v2/tasks/${row.taskId}` } },
      workspace: { data: { id: row.workspaceId, type: 'workspaces' }, links: { related: `/api/v2/workspaces/${row.workspaceId}` } },
    },
    links: { self: `/api/v2/workspaces/${row.workspaceId}/tasks/${row.id}` },
  };
}
