import type { FastifyReply, FastifyRequest } from 'fastify';
import { unprocessable } from '../../core/errors.js';
import type { OrganizationAccess } from '../../store/tables.js';
import { ORGANIZATION_ACCESS_FLAGS } from '../auth/permissions.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readIdentifierList, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { queryList } from '../jsonapi/query.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, identifierListBody, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { teamResource, type TeamView } from './resource.js';
import { VISIBILITIES, type MemberKey, type Scope, type TeamInput, type Visibility } from './service.js';

type Query = Record<string, unknown>;
type TeamParams = { Params: { id: string } };
type OrganizationParams = { Params: { organization: string } };

const TEAM_BODY = resourceBody(['teams'], {
  attributes: {
    name: Attr.string('at most 255 characters'),
    visibility: Attr.string('secret or organization'),
    'sso-team-id': Attr.string(),
    'allow-member-token-management': Attr.boolean(),
    'organization-access': Attr.object('the organization permissions, each a boolean'),
  },
});
const byOrganization = params('organization');
const byTeam = params('id');

export async function teamRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.teams;
  // What a team can include, declared once (its users here, memberships by their domain): the
  // `include` check, the schema and `included` come from the registry.
  const TEAM_INCLUDES = context.services.teamIncludes;
  const INCLUDES = TEAM_INCLUDES.names;

  /** Renders teams with whatever `include` asked for. */
  const render = (scope: Scope, views: TeamView[], include: Set<string>) => ({
    data: views.map(teamResource),
    included: TEAM_INCLUDES.collect(include, { scope, views }),
  });

  const listSchema = { params: byOrganization, querystring: listQuery({ includes: INCLUDES, filters: ['q', 'filter[names]'] }) };
  app.get('/organizations/:organization/teams', { schema: listSchema }, async (request, reply) => {
    const query: Query = request.query;
    const page = readPage(query);
    const { scope, rows, total } = service.list(request.principal, request.params.organization, readFilter(query), page);
    const include = TEAM_INCLUDES.read(query);
    const { data, included } = render(scope, service.views(scope, rows), include);
    return sendDocument(reply, 200, listDocument(request, { items: data, total, page }, { included }));
  });

  app.post<OrganizationParams>(
    '/organizations/:organization/teams',
    { schema: { params: byOrganization, body: TEAM_BODY } },
    async (request, reply) => {
      const scope = service.scope(request.principal, request.params.organization, 'manage-teams');
      const input = readTeamInput(request.body);
      if (input.name === undefined) throw unprocessable('name is required', '/data/attributes/name');
      const created = service.create(scope, { ...input, name: input.name });
      return sendTeam(reply, 201, created, new Set());
    },
  );

  app.get('/teams/:id', { schema: { params: byTeam, querystring: showQuery(INCLUDES) } }, async (request, reply) => {
    const found = service.visible(request.principal, request.params.id);
    return sendTeam(reply, 200, found, TEAM_INCLUDES.read(request.query));
  });

  app.patch<TeamParams>('/teams/:id', { schema: { params: byTeam, body: TEAM_BODY } }, async (request, reply) => {
    const found = service.visible(request.principal, request.params.id, 'update', 'update-organization-access');
    const updated = service.update(found, readTeamInput(request.body));
    return sendTeam(reply, 200, updated, new Set());
  });

  app.delete<TeamParams>('/teams/:id', { schema: { params: byTeam } }, async (request, reply) => {
    service.destroy(service.visible(request.principal, request.params.id));
    return sendNoContent(reply);
  });

  for (const key of ['users', 'organization-memberships'] as const satisfies readonly MemberKey[]) {
    const path = `/teams/:id/relationships/${key}`;
    const change = (action: 'add' | 'remove') => async (request: FastifyRequest<TeamParams>, reply: FastifyReply) => {
      const found = service.visible(request.principal, request.params.id, 'update-membership');
      service.changeMembers(found, action, key, readIdentifierList(request.body, key));
      return sendNoContent(reply);
    };
    const schema = { params: byTeam, body: identifierListBody(key) };
    app.post<TeamParams>(path, { schema }, change('add'));
    app.delete<TeamParams>(path, { schema }, change('remove'));
  }

  function sendTeam(reply: FastifyReply, status: number, found: Scope & { team: TeamView['team'] }, include: Set<string>): FastifyReply {
    const { data, included } = render(found, service.views(found, [found.team]), include);
    return sendDocument(reply, status, singleDocument(data[0] as ResourceObject, included));
  }
}

function readFilter(query: Query): { query?: string; names?: string[] } {
  const q = query['q'];
  const list = queryList(query, 'filter[names]');
  return {
    ...(typeof q === 'string' && q !== '' ? { query: q } : {}),
    ...(list.length > 0 ? { names: list } : {}),
  };
}

/** Reads a team create or update body; every attribute is optional here (create checks `name`). */
function readTeamInput(body: unknown): TeamInput {
  const input = readResource(body, ['teams']);
  const attributes = new Attributes(input.attributes);
  const name = attributes.string('name', { maxLength: 255 }) ?? undefined;
  const visibility = attributes.string('visibility') ?? undefined;
  if (visibility !== undefined && !VISIBILITIES.includes(visibility as Visibility)) {
    throw unprocessable(`visibility must be one of ${VISIBILITIES.join(', ')}`, '/data/attributes/visibility');
  }
  const ssoTeamId = attributes.string('sso-team-id', { nullable: true });
  const allowMemberTokenManagement = attributes.boolean('allow-member-token-management');
  const access = attributes.nested('organization-access');
  let organizationAccess: OrganizationAccess | undefined;
  if (access) {
    organizationAccess = {};
    // Unknown flags are ignored, as the real service ignores attributes it does not know.
    for (const flag of ORGANIZATION_ACCESS_FLAGS) {
      const enabled = access.boolean(flag);
      if (enabled !== undefined) organizationAccess[flag] = enabled;
    }
  }
  return {
    ...(name !== undefined ? { name } : {}),
    ...(visibility !== undefined ? { visibility: visibility as Visibility } : {}),
    ...(ssoTeamId !== undefined ? { ssoTeamId } : {}),
    ...(allowMemberTokenManagement !== undefined ? { allowMemberTokenManagement } : {}),
    ...(organizationAccess ? { organizationAccess } : {}),
  };
}
