import { badRequest } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource, relationshipIds } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { queryList } from '../jsonapi/query.js';
import { readPage } from '../jsonapi/pagination.js';
import { MEMBERSHIP_INCLUDES } from './view.js';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import type { MembershipFilter } from './repo.js';

type ById = { Params: { id: string } };
type Query = Record<string, unknown>;
const INCLUDES = MEMBERSHIP_INCLUDES.names;
const INVITE_BODY = resourceBody(['organization-memberships'], { attributes: { email: Attr.string() }, relationships: ['teams'] });
const LIST_QUERY = listQuery({ includes: INCLUDES, filters: ['q', 'filter[status]', 'filter[email]'] });

function readFilter(query: Query): MembershipFilter {
  const filter: MembershipFilter = {};
  if (typeof query['q'] === 'string' && query['q'] !== '') filter.query = query['q'];
  const status = query['filter[status]'];
  if (status !== undefined && status !== '') {
    if (status !== 'invited' && status !== 'active') {
      throw badRequest('filter[status] must be invited or active', { title: 'bad request', parameter: 'filter[status]' });
    }
    filter.status = status;
  }
  const addresses = queryList(query, 'filter[email]');
  if (addresses.length > 0) filter.emails = addresses;
  return filter;
}

export async function membershipRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.memberships;
  const include = (request: { query: Query }) => MEMBERSHIP_INCLUDES.read(request.query);

  const views = context.services.membershipViews;
  const render = views.render.bind(views);

  app.post(
    '/organizations/:org/organization-memberships',
    { schema: { params: params('org'), querystring: showQuery(INCLUDES), body: INVITE_BODY } },
    async (request, reply) => {
      const wanted = include(request);
      const organization = service.organization(request.principal, request.params.org, true);
      const input = readResource(request.body, ['organization-memberships']);
      const email = new Attributes(input.attributes).string('email', { required: true }) as string;
      const teamIds = relationshipIds(input.relationships, 'teams', 'teams') ?? [];
      const created = service.invite(organization, email, teamIds);
      // The invite always carries the user in `included`, whatever `include` says.
      const { data, included } = render(request.principal, organization, [created], new Set([...wanted, 'user']));
      return sendDocument(reply, 201, singleDocument(data[0] as (typeof data)[number], included));
    },
  );

  app.get(
    '/organizations/:org/organization-memberships',
    { schema: { params: params('org'), querystring: LIST_QUERY } },
    async (request, reply) => {
      const query: Query = request.query;
      const wanted = include(request);
      const page = readPage(query);
      const filter = readFilter(query);
      const organization = service.organization(request.principal, request.params.org, false);
      const { rows, total, statusCounts } = service.list(organization, filter, page);
      const { data, included } = render(request.principal, organization, rows, wanted);
      const meta = { 'status-counts': statusCounts };
      return sendDocument(reply, 200, listDocument(request, { items: data, total, page }, { included, meta }));
    },
  );

  // The caller's own memberships across organizations; team and organization tokens have none.
  app.get('/organization-memberships', { schema: { querystring: listQuery({ includes: INCLUDES }) } }, async (request, reply) => {
    const wanted = include(request);
    const page = readPage(request.query);
    const principal = request.principal;
    if (principal.kind !== 'user') return sendDocument(reply, 200, listDocument(request, { items: [], total: 0, page }));
    const { rows, total } = service.ofUser(principal.user, page);
    const { data: items, included } = context.services.membershipViews.renderAcross(
      principal,
      rows.map(({ membership, organization }) => ({ membership, organization, user: principal.user })),
      wanted,
    );
    return sendDocument(reply, 200, listDocument(request, { items, total, page }, { included }));
  });

  app.get(
    '/organization-memberships/:id',
    { schema: { params: params('id'), querystring: showQuery(INCLUDES) } },
    async (request, reply) => {
      const wanted = include(request);
      const { membership, organization, user } = service.visible(request.principal, request.params.id);
      const { data, included } = render(request.principal, organization, [{ membership, user }], wanted);
      return sendDocument(reply, 200, singleDocument(data[0] as (typeof data)[number], included));
    },
  );

  app.delete<ById>('/organization-memberships/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.remove(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
