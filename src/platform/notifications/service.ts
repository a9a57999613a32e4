import { badRequest, unprocessable } from '../../core/errors.js';
import type { SecretsAtRest } from '../../core/at-rest.js';
import type { Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { findMembership } from '../memberships/repo.js';
import * as organizationsRepo from '../organizations/repo.js';
import { findProject } from '../projects/repo.js';
import { findTeam } from '../teams/repo.js';
import type { WorkspaceService } from '../workspaces/service.js';
import type { NotificationDispatcher } from './delivery.js';
import type { NotificationInput } from './input.js';
import * as repo from './repo.js';
import type { NotificationRow, Subscribable } from './repo.js';
import { URL_DESTINATIONS, type SubscribableKind } from './triggers.js';

/** The most configurations one workspace may have. */
export const MAX_PER_WORKSPACE = 20;
const VERIFICATION_FAILED = 'Unable to complete verification request to destination URL';
const POINTER = '/data/attributes';

export interface Owned {
  owner: Subscribable;
  organization: OrganizationRow;
}

/**
 * Notification configurations of workspaces (workspace admins), teams (Manage Teams) and projects
 * (Manage Projects). Creating or changing an enabled URL configuration first verifies the
 * destination; a destination that does not answer 2xx leaves everything as it was.
 */
export class NotificationService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly atRest: SecretsAtRest,
    private readonly workspaces: WorkspaceService,
    readonly dispatcher: NotificationDispatcher,
  ) {}

  /** The owner named by a path, if the caller may manage its notifications; else the 404 of a missing one. */
  owner(principal: Principal, kind: SubscribableKind, id: string): Owned {
    if (kind === 'workspaces') {
      const located = this.workspaces.require(this.workspaces.locate(principal, id), 'can-update');
      return { owner: { kind, id: located.workspace.id }, organization: located.organization };
    }
    const row = kind === 'teams' ? findTeam(this.db, id) : findProject(this.db, id);
    const organization = row && organizationsRepo.findOrganizationById(this.db, row.organizationId);
    if (!row || !organization) throw NOT_FOUND;
    new Permissions(this.db).require(principal, organization, kind === 'teams' ? 'manage-teams' : 'manage-projects');
    return { owner: { kind, id: row.id }, organization };
  }

  visible(principal: Principal, id: string): Owned & { row: NotificationRow } {
    const row = repo.findNotification(this.db, id);
    if (!row) throw NOT_FOUND;
    const owner = repo.subscribableOf(row);
    return { ...this.owner(principal, owner.kind, owner.id), row };
  }

  list(owned: Owned): NotificationRow[] {
    return repo.listNotifications(this.db, owned.owner);
  }

  async create(owned: Owned, input: NotificationInput): Promise<NotificationRow> {
    const { owner, organization } = owned;
    if (owner.kind === 'workspaces' && repo.countNotifications(this.db, owner) >= MAX_PER_WORKSPACE) {
      throw unprocessable(`a workspace can have at most ${MAX_PER_WORKSPACE} notification configurations`, '/data');
    }
    const at = this.clock.now();
    const token = input.token ?? null;
    const row: NotificationRow = {
      id: newId('nc'),
      organizationId: organization.id,
      workspaceId: owner.kind === 'workspaces' ? owner.id : null,
      teamId: owner.kind === 'teams' ? owner.id : null,
      projectId: owner.kind === 'projects' ? owner.id : null,
      name: input.name as string,
      destinationType: input.destinationType ?? 'generic',
      enabled: input.enabled ?? false,
      url: input.url ?? null,
      tokenSealed: token === null ? null : this.atRest.seal(token),
      triggers: input.triggers ?? [],
      emailAddresses: input.emailAddresses ?? [],
      emailUserIds: input.emailUserIds ?? [],
      deliveryResponses: [],
      createdAt: at,
      updatedAt: at,
    };
    this.check(row, token, organization);
    if (row.enabled) await this.verifyOnSave(row, token);
    repo.insertNotification(this.db, row);
    return row;
  }

  /** Absent attributes keep their values, except email users: an update without them clears them. */
  async update(principal: Principal, id: string, input: NotificationInput): Promise<NotificationRow> {
    const { row, organization } = this.visible(principal, id);
    if (input.destinationType !== undefined && input.destinationType !== row.destinationType) {
      throw unprocessable('destination-type cannot be changed; create a new configuration instead', `${POINTER}/destination-type`);
    }
    const token = input.token !== undefined ? input.token : this.dispatcher.tokenOf(row);
    const updated: NotificationRow = {
      ...row,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.token !== undefined ? { tokenSealed: input.token === null ? null : this.atRest.seal(input.token) } : {}),
      ...(input.triggers !== undefined ? { triggers: input.triggers } : {}),
      ...(input.emailAddresses !== undefined ? { emailAddresses: input.emailAddresses } : {}),
      emailUserIds: row.destinationType === 'email' ? (input.emailUserIds ?? []) : row.emailUserIds,
      updatedAt: this.clock.now(),
    };
    this.check(updated, token, organization);
    const reaches = input.enabled === true || input.url !== undefined || input.token !== undefined;
    if (updated.enabled && reaches) await this.verifyOnSave(updated, token);
    repo.updateNotification(this.db, id, updated);
    return updated;
  }

  /** `actions/verify`: sends the test message; the configuration answers with what the destination said. */
  async verify(principal: Principal, id: string): Promise<NotificationRow> {
    const { row } = this.visible(principal, id);
    const outcome = await this.dispatcher.verify(row, this.dispatcher.tokenOf(row));
    if (!outcome.ok) throw badRequest(VERIFICATION_FAILED, { title: 'bad request' });
    if (!outcome.response) return row;
    repo.recordDeliveryResponse(this.db, row.id, outcome.response);
    return { ...row, deliveryResponses: [outcome.response] };
  }

  destroy(principal: Principal, id: string): void {
    this.visible(principal, id);
    repo.deleteNotification(this.db, id);
  }

  private async verifyOnSave(row: NotificationRow, token: string | null): Promise<void> {
    if (row.destinationType === 'email') return; // Email is verified only on request.
    const outcome = await this.dispatcher.verify(row, token);
    if (!outcome.ok) throw badRequest(VERIFICATION_FAILED, { title: 'bad request' });
    if (outcome.response) row.deliveryResponses = [outcome.response];
  }

  /** The rules joining attributes, on the configuration as it would be saved. */
  private check(row: NotificationRow, token: string | null, organization: OrganizationRow): void {
    const urlDestination = URL_DESTINATIONS.has(row.destinationType);
    if (urlDestination && !row.url) throw unprocessable(`url is required for ${row.destinationType} destinations`, `${POINTER}/url`);
    if (!urlDestination && row.url) throw unprocessable('url must not be set for email destinations', `${POINTER}/url`);
    if (token !== null && row.destinationType !== 'generic') {
      throw unprocessable('token can only be set for generic destinations', `${POINTER}/token`);
    }
    if (row.destinationType !== 'email') {
      if (row.emailAddresses.length > 0)
        throw unprocessable('email-addresses can only be set for email destinations', `${POINTER}/email-addresses`);
      if (row.emailUserIds.length > 0) throw unprocessable('users can only be set for email destinations', '/data/relationships/users');
    }
    row.emailUserIds.forEach((userId, index) => {
      if (!findMembership(this.db, organization.id, userId)) {
        throw unprocessable(`user ${userId} is not a member of the organization`, `/data/relationships/users/data/${index}`);
      }
    });
  }
}
