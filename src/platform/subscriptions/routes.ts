import type { Principal } from '../auth/principal.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { readResource, relationshipId } from '../jsonapi/body.js';
import { listDocument, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody } from '../jsonapi/schemas.js';
import { featureSetResource, subscriptionResource } from './resource.js';

const byOrganization = params('org');
const FEATURE_SETS_QUERY = listQuery({ filters: ['q'] });
const SUBSCRIPTION_BODY = resourceBody(['subscription', 'subscriptions'], {
  attributes: {
    'runs-ceiling': Attr.integer('concurrent runs the organization may have'),
    'agents-ceiling': Attr.integer('agents the organization may run'),
    'contract-user-limit': Attr.integer('users the contract allows'),
    'contract-apply-limit': Attr.integer('applies the contract allows'),
    'contract-managed-resources-limit': Attr.integer('managed resources the contract allows'),
    'contract-start-at': Attr.string('ISO 8601 time'),
    'end-at': Attr.string('ISO 8601 time'),
  },
  relationships: ['feature-set'],
});

/**
 * Plans (`feature-sets`) and subscriptions. The platform's Go client sets up a paid organization
 * through these admin endpoints before its run-task tests, so they answer in both editions.
 */
export async function subscriptionRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.subscriptions;
  const organizations = context.services.organizations;

  // Before validation, so a caller who is not a site administrator meets the 404 whatever it sends.
  const adminOnly = { preValidation: async (request: { principal: Principal }) => service.requireAdmin(request.principal) };

  app.get('/admin/feature-sets', { ...adminOnly, schema: { querystring: FEATURE_SETS_QUERY } }, async (request, reply) => {
    const page = readPage(request.query);
    const q = typeof request.query.q === 'string' && request.query.q !== '' ? request.query.q : undefined;
    const sets = service.featureSets(request.principal, q);
    const items = sets.slice(page.offset, page.offset + page.size).map(featureSetResource);
    return sendDocument(reply, 200, listDocument(request, { items, total: sets.length, page }));
  });

  app.post(
    '/admin/organizations/:org/subscription',
    { ...adminOnly, schema: { params: byOrganization, body: SUBSCRIPTION_BODY } },
    async (request, reply) => {
      const input = readResource(request.body, ['subscription', 'subscriptions']);
      const featureSetId = relationshipId(input.relationships, 'feature-set', 'feature-sets');
      const { organization, featureSet } = service.subscribe(request.principal, request.params.org, featureSetId, input.attributes);
      return sendDocument(reply, 201, singleDocument(subscriptionResource(organization, featureSet)));
    },
  );

  app.get('/organizations/:org/subscription', { schema: { params: byOrganization } }, async (request, reply) => {
    const organization = organizations.visible(request.principal, request.params.org);
    return sendDocument(reply, 200, singleDocument(subscriptionResource(organization, service.current(organization).featureSet)));
  });
}
