import { and } from 'drizzle-orm';
import { unprocessable } from '../../core/errors.js';
import type { Db } from '../../store/store.js';
import type { Principal } from '../auth/principal.js';
import { WorkspacePermissions } from '../auth/workspace-permissions.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { Page } from '../jsonapi/pagination.js';
import * as workspacesRepo from '../workspaces/repo.js';
import { WorkspaceService, type Located } from '../workspaces/service.js';
import * as repo from './repo.js';

export type ConsumerChange = 'replace' | 'add' | 'remove';

/**
 * The five consumer rules of the spec: GET lists who may read the state (every other workspace
 * when `global-remote-state` is on); PATCH replaces the list and is for organization-wide
 * workspace managers; POST and DELETE are for workspace admins; all three refuse while global
 * access is on; consumers must be readable by the caller and never the workspace itself;
 * duplicates on add and absentees on remove are skipped.
 */
export class RemoteStateService {
  constructor(
    private readonly db: Db,
    private readonly workspaces: WorkspaceService,
  ) {}

  list(principal: Principal, workspaceId: string, page: Page) {
    const located = this.workspaces.require(this.workspaces.locate(principal, workspaceId));
    const readable = new WorkspacePermissions(this.db).readable(located.scope);
    const where = and(
      workspacesRepo.workspaceConditions(this.db, located.organization.id, readable, {}),
      repo.consumerCondition(this.db, located.workspace.id, located.workspace.globalRemoteState),
    );
    const { rows, total } = workspacesRepo.listWorkspaces(this.db, where, 'name', page.offset, page.size);
    return { located, rows, total };
  }

  /** Checks the caller, the workspace's mode and the body's ids (in that order), then applies `change`. */
  change(principal: Principal, workspaceId: string, change: ConsumerChange, readConsumerIds: () => string[]): void {
    const located = this.workspaces.locate(principal, workspaceId);
    if (change === 'replace') {
      this.workspaces.require(located);
      if (!located.scope.grants.has('manage-workspaces')) throw NOT_FOUND;
    } else {
      this.workspaces.require(located, 'can-update');
    }
    if (located.workspace.globalRemoteState) {
      throw unprocessable('remote state consumers cannot be changed while global-remote-state is true', '/data');
    }
    const ids = this.checkConsumers(located, readConsumerIds(), change !== 'replace');
    this.db.transaction((tx) => {
      if (change === 'replace') repo.clearConsumers(tx, located.workspace.id);
      if (change === 'remove') repo.removeConsumers(tx, located.workspace.id, ids);
      else repo.addConsumers(tx, located.workspace.id, ids);
    });
  }

  private checkConsumers(located: Located, consumerIds: readonly string[], needsOne: boolean): string[] {
    if (needsOne && consumerIds.length === 0) throw unprocessable('data must name at least one workspace', '/data');
    const unique = [...new Set(consumerIds)];
    const found = new Map(workspacesRepo.findWorkspaces(this.db, unique).map((row) => [row.id, row]));
    const levels = new WorkspacePermissions(this.db).levels(located.scope, unique);
    consumerIds.forEach((id, index) => {
      const consumer = found.get(id);
      if (!consumer || consumer.organizationId !== located.organization.id || !levels.get(id)) {
        throw unprocessable(`workspace ${id} does not exist in this organization or cannot be read with this token`, `/data/${index}/id`);
      }
      if (id === located.workspace.id)
        throw unprocessable(
          'a workspace cannot be a remote state consumer of itself (it can always read its own state)',
          `/data/${index}/id`,
        );
    });
    return unique;
  }
}
