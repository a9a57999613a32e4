import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import type { EnforcementLevel, RunTaskStage } from '../../store/tables.js';
import type { Principal } from '../auth/principal.js';
import { hasPermission } from '../auth/workspace-permissions.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { findRunTask, findWorkspaceTask, type WorkspaceTaskRow } from '../run-tasks/repo.js';
import { runTasksEntitled } from '../run-tasks/service.js';
import { WorkspaceService, type Located } from '../workspaces/service.js';
import * as repo from './repo.js';

export interface WorkspaceTaskInput {
  taskId?: string;
  enforcementLevel?: EnforcementLevel;
  stage?: RunTaskStage;
  stages?: RunTaskStage[];
  enabled?: boolean;
}

/** Given `stages`, that list (and `stage` is its first); given only `stage`, `[stage]`. */
function stagesFrom(input: WorkspaceTaskInput): RunTaskStage[] | undefined {
  if (input.stages !== undefined) return input.stages;
  if (input.stage !== undefined) return [input.stage];
  return undefined;
}

/**
 * Run tasks attached to workspaces. Seeing the attachments needs read access to the workspace
 * (or Manage Workspace Run Tasks); attaching, changing and detaching need Manage Workspace Run
 * Tasks: workspace admins, or the organization's Manage Run Tasks.
 */
export class WorkspaceTaskService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly workspaces: WorkspaceService,
  ) {}

  /** The workspace if the caller may `manage` (or, when false, see) its run tasks; else the 404 of a missing one. */
  workspace(principal: Principal, workspaceId: string, manage: boolean): Located {
    const located = this.workspaces.locate(principal, workspaceId);
    if (!runTasksEntitled(located.organization)) throw NOT_FOUND;
    const canManage = hasPermission(located.scope, located.level, 'can-manage-run-tasks');
    if (!canManage && (manage || !hasPermission(located.scope, located.level, 'can-read-settings'))) throw NOT_FOUND;
    return located;
  }

  find(located: Located, id: string): WorkspaceTaskRow {
    const row = findWorkspaceTask(this.db, id);
    if (!row || row.workspaceId !== located.workspace.id) throw NOT_FOUND;
    return row;
  }

  /** The spec's 404 for a run task that is missing or belongs to another organization. */
  attach(located: Located, input: WorkspaceTaskInput): WorkspaceTaskRow {
    const task = input.taskId === undefined ? undefined : findRunTask(this.db, input.taskId);
    if (!task || task.organizationId !== located.organization.id) throw NOT_FOUND;
    if (repo.findAttachment(this.db, located.workspace.id, task.id)) {
      throw unprocessable('this run task is already attached to the workspace', '/data/relationships/task/data/id');
    }
    const row: WorkspaceTaskRow = {
      id: newId('wstask'),
      workspaceId: located.workspace.id,
      taskId: task.id,
      enforcementLevel: input.enforcementLevel ?? 'advisory',
      stages: stagesFrom(input) ?? ['post_plan'],
      enabled: input.enabled ?? true,
      createdAt: this.clock.now(),
    };
    repo.insertWorkspaceTask(this.db, row);
    return row;
  }

  update(located: Located, id: string, input: WorkspaceTaskInput): WorkspaceTaskRow {
    const row = this.find(located, id);
    const stages = stagesFrom(input);
    const updated: WorkspaceTaskRow = {
      ...row,
      ...(input.enforcementLevel !== undefined ? { enforcementLevel: input.enforcementLevel } : {}),
      ...(stages !== undefined ? { stages } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    };
    repo.updateWorkspaceTask(this.db, id, updated);
    return updated;
  }

  detach(located: Located, id: string): void {
    repo.deleteWorkspaceTask(this.db, this.find(located, id).id);
  }
}
