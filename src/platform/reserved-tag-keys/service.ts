import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { findOrganizationById } from '../organizations/repo.js';
import type { OrganizationService } from '../organizations/service.js';
import * as repo from './repo.js';
import type { ReservedTagKeyRow } from './repo.js';

/** The characters a tag binding's key may hold (as for tag bindings), at most 128 of them. */
const KEY = /^[A-Za-z0-9._:-]{1,128}$/;
const pointer = (name: string) => `/data/attributes/${name}`;

/**
 * Reserved tag keys of an organization. Reading takes membership; creating, changing and
 * deleting take Manage Workspaces (the owners' right), as tag bindings of projects do.
 */
export class ReservedTagKeyService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly organizations: OrganizationService,
  ) {}

  private validKey(key: string, organizationId: string, except?: string): string {
    if (!KEY.test(key)) throw unprocessable('Key is invalid', pointer('key'));
    const existing = repo.findKeyNamed(this.db, organizationId, key);
    if (existing && existing.id !== except) throw unprocessable('Key has already been taken', pointer('key'));
    return key;
  }

  private managed(principal: Principal, organization: OrganizationRow): void {
    if (!new Permissions(this.db).can(principal, organization, 'manage-workspaces')) throw NOT_FOUND;
  }

  list(principal: Principal, organizationName: string, offset: number, limit: number) {
    const organization = this.organizations.visible(principal, organizationName);
    return repo.listKeys(this.db, organization.id, offset, limit);
  }

  create(principal: Principal, organizationName: string, input: { key?: string | null; disableOverrides?: boolean }): ReservedTagKeyRow {
    const organization = this.organizations.visible(principal, organizationName);
    this.managed(principal, organization);
    if (!input.key) throw unprocessable("Key can't be blank", pointer('key'));
    const key = this.validKey(input.key, organization.id);
    const at = this.clock.now();
    const row: ReservedTagKeyRow = {
      id: newId('rtk'),
      organizationId: organization.id,
      key,
      disableOverrides: input.disableOverrides ?? false,
      createdAt: at,
      updatedAt: at,
    };
    repo.insertKey(this.db, row);
    return row;
  }

  private owned(principal: Principal, id: string): ReservedTagKeyRow {
    const row = repo.findKey(this.db, id);
    const organization = row && findOrganizationById(this.db, row.organizationId);
    if (!row || !organization) throw NOT_FOUND;
    this.organizations.visible(principal, organization.name);
    this.managed(principal, organization);
    return row;
  }

  update(principal: Principal, id: string, input: { key?: string | null; disableOverrides?: boolean }): ReservedTagKeyRow {
    const row = this.owned(principal, id);
    const changes: Partial<ReservedTagKeyRow> = {};
    if (input.key !== undefined && input.key !== null) changes.key = this.validKey(input.key, row.organizationId, row.id);
    if (input.disableOverrides !== undefined) changes.disableOverrides = input.disableOverrides;
    if (Object.keys(changes).length === 0) return row;
    const updated = { ...row, ...changes, updatedAt: this.clock.now() };
    repo.updateKey(this.db, row.id, { ...changes, updatedAt: updated.updatedAt });
    return updated;
  }

  destroy(principal: Principal, id: string): void {
    repo.deleteKey(this.db, this.owned(principal, id).id);
  }
}
