import { eq } from 'drizzle-orm';
import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import type { Db } from '../../store/store.js';
import { organizationAuditConfigurations, type AuditConfiguration } from '../../store/tables.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import type { OrganizationService } from '../organizations/service.js';

export interface LoadedAuditConfiguration {
  organization: OrganizationRow;
  configuration: AuditConfiguration;
  updatedAt: Date;
  canManage: boolean;
}

export interface AuditConfigurationChange {
  auditTrailsEnabled?: boolean;
  streamingEnabled?: boolean;
  streamingOrganizationId?: string;
  useDefaultOrganization?: boolean;
}

const defaults = (): AuditConfiguration => ({
  auditTrailsEnabled: true,
  streamingEnabled: false,
  streamingOrganizationId: '',
  useDefaultOrganization: false,
  auditTrailsEnabledAt: null,
  auditTrailsDisabledAt: null,
  streamingEnabledAt: null,
  streamingDisabledAt: null,
});

/**
 * An organization's audit configuration (hosted edition): whether its audit trail is kept and
 * whether it would stream to a log streaming organization. understudy keeps the switches and their
 * timestamps; it streams nowhere. Reading takes membership, changing owners' rights.
 */
export class AuditConfigurationService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly organizations: OrganizationService,
  ) {}

  get(principal: Principal, organizationName: string): LoadedAuditConfiguration {
    const organization = this.organizations.visible(principal, organizationName);
    const row = this.db
      .select()
      .from(organizationAuditConfigurations)
      .where(eq(organizationAuditConfigurations.organizationId, organization.id))
      .get();
    return {
      organization,
      configuration: row?.configuration ?? defaults(),
      updatedAt: row?.updatedAt ?? organization.createdAt,
      canManage: new Permissions(this.db).can(principal, organization, 'manage-organization-access'),
    };
  }

  update(principal: Principal, organizationName: string, change: AuditConfigurationChange): LoadedAuditConfiguration {
    const current = this.get(principal, organizationName);
    if (!current.canManage) throw NOT_FOUND;
    if (
      change.streamingEnabled &&
      !change.useDefaultOrganization &&
      !(change.streamingOrganizationId ?? current.configuration.streamingOrganizationId)
    ) {
      throw unprocessable(
        'an HCP organization id or use-default-organization is required to enable log streaming',
        '/data/attributes/hcp-audit-log-streaming/organization-id',
      );
    }
    const now = this.clock.now();
    const at = now.toISOString();
    const before = current.configuration;
    const next: AuditConfiguration = { ...before, ...change };
    if (next.auditTrailsEnabled !== before.auditTrailsEnabled) {
      if (next.auditTrailsEnabled) next.auditTrailsEnabledAt = at;
      else next.auditTrailsDisabledAt = at;
    }
    if (next.streamingEnabled !== before.streamingEnabled) {
      if (next.streamingEnabled) next.streamingEnabledAt = at;
      else next.streamingDisabledAt = at;
    }
    this.db
      .insert(organizationAuditConfigurations)
      .values({ organizationId: current.organization.id, configuration: next, updatedAt: now })
      .onConflictDoUpdate({ target: organizationAuditConfigurations.organizationId, set: { configuration: next, updatedAt: now } })
      .run();
    return { ...current, configuration: next, updatedAt: now };
  }
}
