import type { Attributes } from '../jsonapi/body.js';

/** What `PATCH /admin/organizations/:org` sets, with the values an organization starts with. */
export const ADMIN_ORGANIZATION_DEFAULTS = {
  'access-beta-tools': false,
  'global-module-sharing': false,
  'global-provider-sharing': false,
  'is-disabled': false,
  'terraform-build-worker-apply-timeout': '24h',
  'terraform-build-worker-plan-timeout': '2h',
  'apply-timeout': '24h',
  'plan-timeout': '2h',
  'terraform-worker-sudo-enabled': false,
  'workspace-limit': null as number | null,
};

export type AdminOrganizationSettings = typeof ADMIN_ORGANIZATION_DEFAULTS;

const FLAGS = [
  'access-beta-tools',
  'global-module-sharing',
  'global-provider-sharing',
  'is-disabled',
  'terraform-worker-sudo-enabled',
] as const;
const TIMEOUTS = ['terraform-build-worker-apply-timeout', 'terraform-build-worker-plan-timeout', 'apply-timeout', 'plan-timeout'] as const;

/** A Go duration of hours, minutes and seconds, as the timeouts are written (`24h`, `90m`, `1h30m`). */
const TIMEOUT = /^(?=\d)(?:\d+h)?(?:\d+m)?(?:\d+s)?$/;

/** The attributes of a PATCH, checked; absent ones are left out. */
export function readAdminOrganizationUpdate(attributes: Attributes): Partial<AdminOrganizationSettings> {
  const changes: Partial<Record<keyof AdminOrganizationSettings, unknown>> = {};
  for (const name of FLAGS) {
    const value = attributes.boolean(name);
    if (value !== undefined) changes[name] = value;
  }
  for (const name of TIMEOUTS) {
    const value = attributes.string(name, { pattern: TIMEOUT, patternText: 'must be a duration such as "2h" or "90m"' });
    if (value !== undefined && value !== null) changes[name] = value;
  }
  if (attributes.has('workspace-limit')) {
    // null lifts the limit; 0 is kept as sent (the Go client reads back what it wrote).
    changes['workspace-limit'] = attributes.integer('workspace-limit', { minimum: 0 }) ?? null;
  }
  return changes as Partial<AdminOrganizationSettings>;
}
