import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import type { Db } from '../../store/store.js';
import type { StoredSubscription } from '../../store/tables.js';
import { isSiteAdmin, type OrganizationRow, type Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import * as organizationsRepo from '../organizations/repo.js';

export interface FeatureSet {
  id: string;
  name: string;
  /** Entitlements the plan sets away from the defaults (see DEFAULT_ENTITLEMENTS). */
  entitlements: Readonly<Record<string, boolean>>;
}

/** What a free organization lacks: the paid features the Go client's tests check for. */
export const PAID = [
  'agents',
  'audit-logging',
  'global-run-tasks',
  'private-run-tasks',
  'run-tasks',
  'sentinel',
  'sso',
  'teams',
  'cost-estimation',
  'no-code-modules',
];

const off = (names: readonly string[]) => Object.fromEntries(names.map((name) => [name, false]));

/**
 * The plans an organization can be put on, each with the entitlements that differ from the
 * defaults. Their names are the ones the platform's Go client asks for (`q=Business`, `q=Free`,
 * `q=Trial`, `q=Plus (entitlement)`, `q=Standard (entitlement)`); the flags are what its tests read after subscribing:
 * a trial has no global run tasks, and Plus has templates and add-ons but no actions.
 */
export const FEATURE_SETS: readonly FeatureSet[] = [
  { id: 'fs-free', name: 'Free', entitlements: { ...off(PAID), 'waypoint-actions': false } },
  { id: 'fs-trial', name: 'Trial', entitlements: { 'global-run-tasks': false, 'waypoint-actions': false } },
  {
    id: 'fs-standard',
    name: 'Standard',
    entitlements: { ...off(['audit-logging', 'sentinel', 'global-run-tasks', 'no-code-modules']), 'waypoint-actions': false },
  },
  {
    id: 'fs-standard-entitlement',
    name: 'Standard (entitlement)',
    entitlements: { 'waypoint-templates-and-addons': true, 'waypoint-actions': false },
  },
  {
    id: 'fs-plus-entitlement',
    name: 'Plus (entitlement)',
    entitlements: { 'waypoint-templates-and-addons': true, 'waypoint-actions': false },
  },
  { id: 'fs-business', name: 'Business', entitlements: { 'waypoint-templates-and-addons': true, 'waypoint-actions': true } },
  { id: 'fs-premium', name: 'Premium', entitlements: { 'waypoint-templates-and-addons': true, 'waypoint-actions': true } },
];

/** The figures a subscription may carry, as the wire spells them. */
const CONTRACT_INTEGERS = [
  'runs-ceiling',
  'agents-ceiling',
  'contract-user-limit',
  'contract-apply-limit',
  'contract-managed-resources-limit',
];
const CONTRACT_TIMES = ['contract-start-at', 'end-at'];

/** Plans and subscriptions: a site administrator's way to give an organization paid features. */
export class SubscriptionService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Anyone else meets the same 404 as a missing path. */
  requireAdmin(principal: Principal): void {
    if (!isSiteAdmin(principal)) throw NOT_FOUND;
  }

  /** Plans whose name contains `q` (any case). */
  featureSets(principal: Principal, q: string | undefined): FeatureSet[] {
    this.requireAdmin(principal);
    const wanted = q?.toLowerCase();
    return FEATURE_SETS.filter((set) => wanted === undefined || set.name.toLowerCase().includes(wanted));
  }

  /** Puts the organization on the plan: its entitlements become the plan's. */
  subscribe(principal: Principal, organizationName: string, featureSetId: string | null | undefined, attributes: Record<string, unknown>) {
    this.requireAdmin(principal);
    const organization = organizationsRepo.findOrganizationByName(this.db, organizationName);
    if (!organization) throw NOT_FOUND;
    const featureSet = FEATURE_SETS.find((set) => set.id === featureSetId);
    if (!featureSet)
      throw unprocessable(
        'relationships.feature-set must name a feature set from /api/v2/admin/feature-sets',
        '/data/relationships/feature-set/data/id',
      );
    const contract: Record<string, number | string> = {};
    for (const name of CONTRACT_INTEGERS) {
      const value = attributes[name];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'number' || !Number.isInteger(value) || value < 0)
        throw unprocessable(`${name} must be a non-negative integer`, `/data/attributes/${name}`);
      contract[name] = value;
    }
    for (const name of CONTRACT_TIMES) {
      const value = attributes[name];
      if (value === undefined || value === null) continue;
      if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
        throw unprocessable(`${name} must be an ISO 8601 time`, `/data/attributes/${name}`);
      contract[name] = new Date(value).toISOString();
    }
    const subscription: StoredSubscription = { featureSetId: featureSet.id, startedAt: this.clock.now().toISOString(), contract };
    const entitlements = { ...featureSet.entitlements };
    const settings = { ...organization.settings, subscription, entitlements };
    organizationsRepo.updateOrganization(this.db, organization.id, { settings, updatedAt: this.clock.now() });
    return { organization: { ...organization, settings }, featureSet };
  }

  /** The organization's subscription, for any member who can read the organization. */
  current(organization: OrganizationRow): { subscription: StoredSubscription | undefined; featureSet: FeatureSet | undefined } {
    const subscription = organization.settings.subscription;
    return { subscription, featureSet: FEATURE_SETS.find((set) => set.id === subscription?.featureSetId) };
  }
}
