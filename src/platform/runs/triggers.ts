import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import type { Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import * as workspacesRepo from '../workspaces/repo.js';
import type { Located, WorkspaceService } from '../workspaces/service.js';
import * as repo from './repo.js';
import type { RunTriggerRow } from './repo.js';

/** A trigger with the names its wire object shows. */
export interface NamedTrigger {
  trigger: RunTriggerRow;
  names: { workspace: string; source: string };
}

const SOURCE_POINTER = '/data/relationships/sourceable';

/**
 * Run triggers: a workspace names source workspaces; each apply that finishes in a source queues
 * a run in the workspace (see `RunService.triggered`). Reading them needs `can-read-settings` on
 * the workspace, managing them `can-update`.
 */
export class RunTriggerService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly workspaces: WorkspaceService,
  ) {}

  /** The readers run after the permission check, as in every route: a caller without the right hears 403, not the body's rules. */
  create(located: Located, readSourceId: () => string | null | undefined): NamedTrigger {
    this.workspaces.require(located, 'can-update');
    const sourceId = readSourceId();
    if (!sourceId) throw unprocessable('relationships.sourceable is required', SOURCE_POINTER);
    const source = workspacesRepo.findWorkspace(this.db, sourceId);
    if (!source || source.organizationId !== located.workspace.organizationId) {
      throw unprocessable('sourceable workspace not found', SOURCE_POINTER);
    }
    if (source.id === located.workspace.id) throw unprocessable('a workspace cannot trigger itself', SOURCE_POINTER);
    if (repo.triggersOf(this.db, 'inbound', located.workspace.id).some((trigger) => trigger.sourceWorkspaceId === source.id)) {
      throw unprocessable('sourceable has already been taken', SOURCE_POINTER);
    }
    const trigger = { id: newId('rt'), workspaceId: located.workspace.id, sourceWorkspaceId: source.id, createdAt: this.clock.now() };
    repo.insertTrigger(this.db, trigger);
    return this.named(trigger);
  }

  /** `inbound`: the workspace's sources; `outbound`: the workspaces it triggers. */
  list(located: Located, readSide: () => 'inbound' | 'outbound'): RunTriggerRow[] {
    this.workspaces.require(located, 'can-read-settings');
    return repo.triggersOf(this.db, readSide(), located.workspace.id);
  }

  find(principal: Principal, id: string): NamedTrigger {
    return this.named(this.visible(principal, id, 'can-read-settings'));
  }

  delete(principal: Principal, id: string): void {
    repo.deleteTrigger(this.db, this.visible(principal, id, 'can-update').id);
  }

  named(trigger: RunTriggerRow): NamedTrigger {
    const nameOf = (id: string) => workspacesRepo.findWorkspace(this.db, id)?.name ?? '';
    return { trigger, names: { workspace: nameOf(trigger.workspaceId), source: nameOf(trigger.sourceWorkspaceId) } };
  }

  private visible(principal: Principal, id: string, need: 'can-read-settings' | 'can-update'): RunTriggerRow {
    const trigger = repo.findTrigger(this.db, id);
    if (!trigger) throw NOT_FOUND;
    this.workspaces.require(this.workspaces.locate(principal, trigger.workspaceId), need);
    return trigger;
  }
}
