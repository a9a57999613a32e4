import { Type } from '@sinclair/typebox';
import { badRequest } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { queryList } from '../jsonapi/query.js';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { userResource } from '../users/resource.js';
import type { AdminWorkspaceSort } from './repo.js';
import { ADMIN_ORGANIZATION_DEFAULTS, readAdminOrganizationUpdate } from './fields.js';
import { isRunStatus } from '../runs/lifecycle.js';
import { adminOrganizationResource } from './resource.js';
import {
  adminOrganizationIncludes,
  adminOrganizationView,
  adminRunIncludes,
  adminRunView,
  adminWorkspaceIncludes,
  adminWorkspaceView,
} from './view.js';

type Query = Record<string, unknown>;

const ORGANIZATION_BODY = resourceBody(['organizations'], {
  allowEmptyType: true,
  attributes: Object.fromEntries(
    Object.entries(ADMIN_ORGANIZATION_DEFAULTS).map(([name, value]) => [
      name,
      typeof value === 'boolean' ? Attr.boolean() : typeof value === 'string' ? Attr.string('a duration such as "2h"') : Attr.integer(),
    ]),
  ),
});

const CONSUMERS_BODY = Type.Object({
  data: Type.Array(Type.Object({ type: Type.String(), id: Type.String() }, { additionalProperties: true })),
});

const WORKSPACE_SORTS: readonly AdminWorkspaceSort[] = ['name', '-name', 'current-run.created-at', '-current-run.created-at'];
const WORKSPACE_INCLUDES = adminWorkspaceIncludes.names;

const RUN_INCLUDES = adminRunIncludes.names;
/** Statuses go-tfe lets a caller filter on that understudy never writes: valid, they match nothing. */
const OTHER_RUN_STATUSES = ['cost_estimating', 'cost_estimated', 'policy_soft_failed'];

/** `filter[from]` / `filter[to]`: an RFC 3339 time, or a 400 naming the parameter. */
function time(query: Query, name: string): Date | undefined {
  const value = text(query, name);
  if (value === undefined) return undefined;
  const parsed = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(value) ? new Date(value) : new Date(Number.NaN);
  if (Number.isNaN(parsed.getTime())) throw badRequest(`${name} must be an RFC 3339 time`, { title: 'bad request', parameter: name });
  return parsed;
}

function text(query: Query, name: string): string | undefined {
  const value = queryList(query, name).join(',');
  return value === '' ? undefined : value;
}

/**
 * `/admin/organizations`, `/admin/workspaces` and the user actions of `/admin/users` (self-hosted
 * edition only; `platform/plugin.ts` registers them there). Site administrators only: anyone else
 * meets the 404 of a missing resource before the body is read.
 */
export async function siteAdminRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.siteAdmin;
  const users = context.services.users;
  app.addHook('preValidation', async (request) => service.requireAdmin(request.principal));

  app.get(
    '/admin/organizations',
    { schema: { querystring: listQuery({ includes: ['owners'], filters: ['q', 'filter[module_producer]'] }) } },
    async (request, reply) => {
      const query: Query = request.query;
      const page = readPage(query);
      const wanted = adminOrganizationIncludes.read(query);
      const producer = text(query, 'filter[module_producer]');
      const { rows, total } = service.listOrganizations(
        request.principal,
        { ...(text(query, 'q') ? { q: text(query, 'q') } : {}), ...(producer ? { producer } : {}) },
        page.offset,
        page.size,
      );
      const { items, included } = adminOrganizationView(rows, service.ownersOf(rows), wanted);
      return sendDocument(reply, 200, listDocument(request, { items, total, page }, { included }));
    },
  );

  app.get(
    '/admin/organizations/:org',
    { schema: { params: params('org'), querystring: showQuery(['owners']) } },
    async (request, reply) => {
      const wanted = adminOrganizationIncludes.read(request.query);
      const organization = service.showOrganization(request.principal, request.params.org);
      const { items, included } = adminOrganizationView([organization], service.ownersOf([organization]), wanted);
      return sendDocument(reply, 200, singleDocument(items[0] as ResourceObject, included));
    },
  );

  app.patch('/admin/organizations/:org', { schema: { params: params('org'), body: ORGANIZATION_BODY } }, async (request, reply) => {
    const { attributes } = readResource(request.body, ['organizations'], { allowEmptyType: true });
    const changes = readAdminOrganizationUpdate(new Attributes(attributes));
    const organization = service.updateOrganization(request.principal, request.params.org, changes);
    const owners = service.ownersOf([organization]).get(organization.id) ?? [];
    return sendDocument(reply, 200, singleDocument(adminOrganizationResource(organization, owners)));
  });

  app.delete('/admin/organizations/:org', { schema: { params: params('org') } }, async (request, reply) => {
    service.destroyOrganization(request.principal, request.params.org);
    return sendNoContent(reply);
  });

  const consumers = '/admin/organizations/:org/relationships/module-consumers';
  app.get(consumers, { schema: { params: params('org'), querystring: listQuery() } }, async (request, reply) => {
    const page = readPage(request.query);
    const all = service.moduleConsumers(request.principal, request.params.org);
    const items = all.slice(page.offset, page.offset + page.size).map((row) => adminOrganizationResource(row));
    return sendDocument(reply, 200, listDocument(request, { items, total: all.length, page }));
  });

  app.patch(consumers, { schema: { params: params('org'), body: CONSUMERS_BODY } }, async (request, reply) => {
    const names = request.body.data.map((item, index) => {
      if (item.type !== 'organizations') throw badRequest('data items must be organizations', { pointer: `/data/${index}/type` });
      return item.id;
    });
    service.setModuleConsumers(request.principal, request.params.org, names);
    return sendNoContent(reply);
  });

  app.get(
    '/admin/workspaces',
    { schema: { querystring: listQuery({ includes: WORKSPACE_INCLUDES, filters: ['q', 'filter[current_run][status]', 'sort'] }) } },
    async (request, reply) => {
      const query: Query = request.query;
      const page = readPage(query);
      const wanted = adminWorkspaceIncludes.read(query);
      const asked = text(query, 'sort');
      if (asked !== undefined && !WORKSPACE_SORTS.includes(asked as AdminWorkspaceSort)) {
        throw badRequest(`sort must be one of ${WORKSPACE_SORTS.join(', ')}`, { title: 'bad request', parameter: 'sort' });
      }
      const sort = (asked ?? 'recent') as AdminWorkspaceSort;
      const status = text(query, 'filter[current_run][status]');
      const q = text(query, 'q');
      const found = service.listWorkspaces(
        request.principal,
        { ...(q ? { q } : {}), ...(status ? { currentRunStatus: status } : {}) },
        sort,
        page.offset,
        page.size,
      );
      // A current-run order sends the runs it sorted on even unasked: the Go client's sort test
      // compares the runs' `created-at` without naming the include.
      if (sort.endsWith('current-run.created-at')) wanted.add('current_run');
      const { items, included } = adminWorkspaceView({ ...found, workspaces: found.rows }, wanted);
      return sendDocument(reply, 200, listDocument(request, { items, total: found.total, page }, { included }));
    },
  );

  app.get(
    '/admin/runs',
    { schema: { querystring: listQuery({ includes: RUN_INCLUDES, filters: ['q', 'filter[status]', 'filter[from]', 'filter[to]'] }) } },
    async (request, reply) => {
      const query: Query = request.query;
      const page = readPage(query);
      const wanted = adminRunIncludes.read(query);
      const statuses = text(query, 'filter[status]')?.split(',');
      const unknown = statuses?.find((status) => !isRunStatus(status) && !OTHER_RUN_STATUSES.includes(status));
      if (unknown !== undefined)
        throw badRequest(`invalid value ${unknown} for run status`, { title: 'bad request', parameter: 'filter[status]' });
      const q = text(query, 'q');
      const from = time(query, 'filter[from]');
      const to = time(query, 'filter[to]');
      const found = service.listRuns(
        request.principal,
        { ...(statuses ? { statuses } : {}), ...(q ? { q } : {}), ...(from ? { from } : {}), ...(to ? { to } : {}) },
        page.offset,
        page.size,
      );
      const { items, included } = adminRunView(found.rows, found, wanted);
      return sendDocument(reply, 200, listDocument(request, { items, total: found.total, page }, { included }));
    },
  );

  app.post<{ Params: { id: string } }>(
    '/admin/runs/:id/actions/force-cancel',
    { schema: { params: params('id') } },
    async (request, reply) => {
      const body = request.body as { comment?: unknown; data?: { attributes?: { comment?: unknown } } } | null | undefined;
      const given = body?.comment ?? body?.data?.attributes?.comment;
      context.services.runs.adminForceCancel(request.principal, request.params.id, typeof given === 'string' ? given : null);
      return reply.code(202).send();
    },
  );

  app.get(
    '/admin/workspaces/:id',
    { schema: { params: params('id'), querystring: showQuery(WORKSPACE_INCLUDES) } },
    async (request, reply) => {
      const wanted = adminWorkspaceIncludes.read(request.query);
      const { workspace, ...parts } = service.showWorkspace(request.principal, request.params.id);
      const { items, included } = adminWorkspaceView({ ...parts, workspaces: [workspace] }, wanted);
      return sendDocument(reply, 200, singleDocument(items[0] as ResourceObject, included));
    },
  );

  app.delete('/admin/workspaces/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroyWorkspace(request.principal, request.params.id);
    return sendNoContent(reply);
  });

  app.delete('/admin/users/:id', { schema: { params: params('id') } }, async (request, reply) => {
    users.destroyAs(request.principal, request.params.id);
    return sendNoContent(reply);
  });

  const actions = {
    suspend: { isSuspended: true },
    unsuspend: { isSuspended: false },
    grant_admin: { isSiteAdmin: true },
    revoke_admin: { isSiteAdmin: false },
    // Two-factor authentication is never on here, so turning it off changes nothing.
    disable_two_factor: {},
  } as const;
  for (const [action, changes] of Object.entries(actions)) {
    app.post(`/admin/users/:id/actions/${action}`, { schema: { params: params('id') } }, async (request, reply) =>
      sendDocument(reply, 200, singleDocument(userResource(users.setFlags(request.principal, request.params.id, changes)))),
    );
  }
}
