import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import * as organizationsRepo from '../organizations/repo.js';
import { OrganizationService } from '../organizations/service.js';
import * as repo from './repo.js';
import type { SshKeyRow } from './repo.js';

/** SSH keys belong to the organization's VCS settings: Manage VCS Settings (owners have it) governs them. */
export class SshKeyService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly organizations: OrganizationService,
  ) {}

  private managed(principal: Principal, organization: OrganizationRow): void {
    new Permissions(this.db).require(principal, organization, 'manage-vcs-settings');
  }

  visible(principal: Principal, id: string): { key: SshKeyRow; organization: OrganizationRow } {
    const key = repo.findSshKey(this.db, id);
    const organization = key && organizationsRepo.findOrganizationById(this.db, key.organizationId);
    if (!key || !organization) throw NOT_FOUND;
    this.managed(principal, organization);
    return { key, organization };
  }

  list(principal: Principal, organizationName: string, offset: number, limit: number) {
    const organization = this.organizations.visible(principal, organizationName);
    this.managed(principal, organization);
    return { organization, ...repo.listSshKeys(this.db, organization.id, offset, limit) };
  }

  create(principal: Principal, organizationName: string, input: { name: string; value: string }) {
    const organization = this.organizations.visible(principal, organizationName);
    this.managed(principal, organization);
    const at = this.clock.now();
    const key: SshKeyRow = {
      id: newId('sshkey'),
      organizationId: organization.id,
      name: input.name,
      value: input.value,
      createdAt: at,
      updatedAt: at,
    };
    repo.insertSshKey(this.db, key);
    return { key, organization };
  }

  update(principal: Principal, id: string, changes: { name?: string; value?: string }) {
    const { key, organization } = this.visible(principal, id);
    const updated: SshKeyRow = { ...key, ...changes, updatedAt: this.clock.now() };
    // The stored value is sealed: only a new one is written (and sealed on the way).
    repo.updateSshKey(this.db, id, {
      name: updated.name,
      ...(changes.value !== undefined ? { value: changes.value } : {}),
      updatedAt: updated.updatedAt,
    });
    return { key: updated, organization };
  }

  destroy(principal: Principal, id: string): void {
    this.visible(principal, id);
    repo.deleteSshKey(this.db, id);
  }
}

/** The key `id` if it belongs to `organizationId`; otherwise a 422 on the attribute that named it. */
export function requireSshKeyOf(db: Db, organizationId: string, id: string, pointer: string): SshKeyRow {
  const key = repo.findSshKey(db, id);
  if (!key || key.organizationId !== organizationId) throw unprocessable('the SSH key does not exist in this organization', pointer);
  return key;
}
