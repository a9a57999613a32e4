import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../context.js';
import { readResource, relationshipId } from '../jsonapi/body.js';
import { listDocument, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { OrganizationService } from '../organizations/service.js';
import { featureSetResource, subscriptionResource } from './resource.js';
import { SubscriptionService } from './service.js';

type ByOrganization = { Params: { org: string } };

/**
 * Plans (`feature-sets`) and subscriptions. The platform's Go client sets up a paid organization
 * through these admin endpoints before its run-task tests, so they answer in both editions.
 */
export async function subscriptionRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const { db } = context.store;
  const service = new SubscriptionService(db, context.clock);
  const organizations = new OrganizationService(db, context.clock);

  app.get('/admin/feature-sets', async (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const page = readPage(query);
    const q = typeof query['q'] === 'string' && query['q'] !== '' ? query['q'] : undefined;
    const sets = service.featureSets(request.principal, q);
    const items = sets.slice(page.offset, page.offset + page.size).map(featureSetResource);
    return sendDocument(reply, 200, listDocument(request, { items, total: sets.length, page }));
  });

  app.post<ByOrganization>('/admin/organizations/:org/subscription', async (request, reply) => {
    const input = readResource(request.body, ['subscription', 'subscriptions']);
    const featureSetId = relationshipId(input.relationships, 'feature-set', 'feature-sets');
    const { organization, featureSet } = service.subscribe(request.principal, request.params.org, featureSetId, input.attributes);
    return sendDocument(reply, 201, singleDocument(subscriptionResource(organization, featureSet)));
  });

  app.get<ByOrganization>('/organizations/:org/subscription', async (request, reply) => {
    const organization = organizations.visible(request.principal, request.params.org);
    return sendDocument(reply, 200, singleDocument(subscriptionResource(organization, service.current(organization).featureSet)));
  });
}
