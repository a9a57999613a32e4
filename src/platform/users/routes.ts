import { badRequest } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { listDocument, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import { userResource } from './resource.js';
import { adminUserIncludes, adminUserView, userIncludes } from './view.js';

type Query = Record<string, unknown>;

const ACCOUNT_BODY = resourceBody(['users'], { allowEmptyType: true, attributes: { username: Attr.string(), email: Attr.string() } });
const ADMIN_USER_BODY = resourceBody(['users'], {
  attributes: {
    username: Attr.string(),
    email: Attr.string(),
    'is-site-admin': Attr.boolean(),
    'is-admin': Attr.boolean('alias of is-site-admin'),
  },
});

/** `users`, the caller's account, and the site administrator's user management (an understudy extension). */
export async function userRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.users;

  app.get('/users/:id', { schema: { params: params('id'), querystring: showQuery() } }, async (request, reply) => {
    userIncludes.read(request.query);
    const user = service.visible(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(userResource(user)));
  });

  app.get('/account/details', { schema: { querystring: showQuery() } }, async (request, reply) => {
    userIncludes.read(request.query);
    return sendDocument(reply, 200, singleDocument(userResource(service.current(request.principal))));
  });

  app.patch('/account/update', { schema: { body: ACCOUNT_BODY } }, async (request, reply) => {
    if (request.principal.kind !== 'user') throw NOT_FOUND;
    const input = readResource(request.body, ['users'], { allowEmptyType: true });
    const attributes = new Attributes(input.attributes);
    const username = attributes.string('username') ?? undefined;
    const email = attributes.string('email') ?? undefined;
    const user = service.updateAccount(request.principal, { username, email });
    return sendDocument(reply, 200, singleDocument(userResource(user)));
  });

  app.post('/admin/users', { schema: { body: ADMIN_USER_BODY } }, async (request, reply) => {
    // Refuse before reading the body, so a non-administrator learns nothing from validation errors.
    service.requireSiteAdmin(request.principal);
    const input = readResource(request.body, ['users']);
    const attributes = new Attributes(input.attributes);
    const user = service.createAs(request.principal, {
      username: attributes.string('username', { required: true }) as string,
      email: attributes.string('email', { required: true }) as string,
      siteAdmin: attributes.boolean('is-site-admin') ?? attributes.boolean('is-admin') ?? false,
    });
    return sendDocument(reply, 201, singleDocument(userResource(user)));
  });

  const adminListQuery = listQuery({ includes: adminUserIncludes.names, filters: ['q', 'filter[admin]', 'filter[suspended]'] });
  app.get('/admin/users', { schema: { querystring: adminListQuery } }, async (request, reply) => {
    const query: Query = request.query;
    const page = readPage(query);
    const wanted = adminUserIncludes.read(query);
    const { rows, total } = service.list(
      request.principal,
      { query: text(query['q']), siteAdmin: flag(query, 'filter[admin]'), suspended: flag(query, 'filter[suspended]') },
      page.offset,
      page.size,
    );
    const organizations = service.organizationsOf(rows.map((row) => row.id));
    const { items, included } = adminUserView(rows, organizations, wanted);
    return sendDocument(reply, 200, listDocument(request, { items, total, page }, { included }));
  });
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function flag(query: Query, parameter: string): boolean | undefined {
  const value = query[parameter];
  if (value === undefined || value === '') return undefined;
  if (value === 'true' || value === 'false') return value === 'true';
  throw badRequest(`${parameter} must be true or false`, { title: 'bad request', parameter });
}
