import type { OrganizationRow } from '../auth/principal.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { entitlements } from '../organizations/resource.js';
import type { FeatureSet } from './service.js';

export function featureSetResource(set: FeatureSet): ResourceObject {
  return {
    id: set.id,
    type: 'feature-sets',
    attributes: { name: set.name, ...set.entitlements },
    links: { self: `/api/v2/admin/feature-sets/${set.id}` },
  };
}

/** An organization's subscription; an organization never put on a plan reads as a free one. */
export function subscriptionResource(organization: OrganizationRow, featureSet: FeatureSet | undefined): ResourceObject {
  const subscription = organization.settings.subscription;
  const granted = entitlements(organization);
  return {
    id: `sub-${organization.id}`,
    type: 'subscriptions',
    attributes: {
      'is-active': true,
      'is-public-free-tier': featureSet === undefined || featureSet.name === 'Free',
      'is-self-serve-trial': featureSet?.name === 'Trial',
      'start-at': subscription?.startedAt ?? organization.createdAt.toISOString(),
      'runs-ceiling': 1,
      'agents-ceiling': granted['agents'] ? 0 : null,
      ...subscription?.contract,
    },
    relationships: {
      organization: { data: { id: organization.name, type: 'organizations' } },
      'feature-set': { data: featureSet ? { id: featureSet.id, type: 'feature-sets' } : null },
    },
    links: { self: `/api/v2/organizations/${encodeURIComponent(organization.name)}/subscription` },
  };
}
