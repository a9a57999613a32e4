import { Type } from '@fastify/type-provider-typebox';
import { badRequest } from '../../core/errors.js';
import type { Principal } from '../auth/principal.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, optionalResourceBody, params } from '../jsonapi/schemas.js';
import type { TeamTokenFilter } from './repo.js';
import { tokenResource } from './resource.js';
import { type TokenInput } from './service.js';

/**
 * Body types real clients send for tokens: go-tfe's option structs carry no type (so `""`), the
 * documentation writes `authentication-token`, and the resource type is `authentication-tokens`.
 */
const TOKEN_TYPES = ['authentication-tokens', 'authentication-token'];

const TOKEN_BODY = optionalResourceBody(TOKEN_TYPES, {
  allowEmptyType: true,
  attributes: {
    description: Attr.string('at most 255 characters (not on organization tokens)'),
    'expired-at': Attr.string('ISO 8601 timestamp'),
  },
});
const byUser = params('userId');
const TOKEN_QUERY = Type.Object({ token: Type.Optional(Type.String()) });
const byTeam = params('teamId');
const byOrganization = params('organization');

export async function tokenRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.tokens;
  const teams = context.services.teams;

  /** A token body is optional (older clients POST nothing); every attribute is optional too. */
  const readInput = (body: unknown, options: { description: boolean }): TokenInput => {
    if (body === undefined || body === null) return {};
    const attributes = new Attributes(readResource(body, TOKEN_TYPES, { allowEmptyType: true }).attributes);
    const description = options.description ? attributes.string('description', { nullable: true, maxLength: 255 }) : undefined;
    const expiredAt = service.expiry(attributes.string('expired-at', { nullable: true }));
    return {
      ...(description !== undefined ? { description } : {}),
      ...(expiredAt !== undefined ? { expiredAt } : {}),
    };
  };

  // User tokens: the user themself, or a site administrator.
  app.post('/users/:userId/authentication-tokens', { schema: { params: byUser, body: TOKEN_BODY } }, async (request, reply) => {
    const userId = service.tokenUser(request.principal, request.params.userId);
    const issued = service.createUserToken(request.principal, userId, readInput(request.body, { description: true }));
    return sendDocument(reply, 201, singleDocument(tokenResource(issued.row, issued.secret)));
  });

  app.get('/users/:userId/authentication-tokens', { schema: { params: byUser, querystring: listQuery() } }, async (request, reply) => {
    const page = readPage(request.query);
    const { rows, total } = service.listUserTokens(request.principal, request.params.userId, page);
    return sendDocument(reply, 200, listDocument(request, { items: rows.map((row) => tokenResource(row)), total, page }));
  });

  // Agent tokens share these two paths (go-tfe reads and deletes them here); the agents domain owns them.
  const agents = context.services.agents;
  app.get('/authentication-tokens/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const agentToken = agents.findToken(request.principal, request.params.id);
    if (agentToken) return sendDocument(reply, 200, singleDocument(agents.tokenDocument(agentToken)));
    return sendDocument(reply, 200, singleDocument(tokenResource(service.manageable(request.principal, request.params.id))));
  });

  app.delete('/authentication-tokens/:id', { schema: { params: params('id') } }, async (request, reply) => {
    if (!agents.revokeToken(request.principal, request.params.id)) service.revoke(request.principal, request.params.id);
    return sendNoContent(reply);
  });

  // The team token: one per team; POST replaces it.
  app.post('/teams/:teamId/authentication-token', { schema: { params: byTeam, body: TOKEN_BODY } }, async (request, reply) => {
    const { team } = teams.visible(request.principal, request.params.teamId, 'update-api-token');
    const issued = service.replaceOwnedToken(
      request.principal,
      { kind: 'team', teamId: team.id },
      // The legacy token has no description: a described one is one of the team's several tokens.
      readInput(request.body, { description: false }),
    );
    return sendDocument(reply, 201, singleDocument(tokenResource(issued.row, issued.secret)));
  });

  // Several tokens per team, each with its own description and expiry.
  app.post('/teams/:teamId/authentication-tokens', { schema: { params: byTeam, body: TOKEN_BODY } }, async (request, reply) => {
    const { team } = teams.visible(request.principal, request.params.teamId, 'update-api-token');
    const issued = service.createTeamToken(request.principal, team.id, readInput(request.body, { description: true }));
    return sendDocument(reply, 201, singleDocument(tokenResource(issued.row, issued.secret)));
  });

  app.get('/teams/:teamId/authentication-tokens', { schema: { params: byTeam, querystring: listQuery() } }, async (request, reply) => {
    const { team } = teams.visible(request.principal, request.params.teamId, 'update-api-token');
    const page = readPage(request.query);
    const { rows, total } = service.teamTokens(team.id, page);
    return sendDocument(reply, 200, listDocument(request, { items: rows.map((row) => tokenResource(row)), total, page }));
  });

  const teamTokenQuery = listQuery({ filters: ['q', 'sort'] });
  app.get(
    '/organizations/:organization/team-tokens',
    { schema: { params: byOrganization, querystring: teamTokenQuery } },
    async (request, reply) => {
      const raw: Record<string, unknown> = request.query;
      const page = readPage(raw);
      const sortText = typeof raw['sort'] === 'string' && raw['sort'] !== '' ? raw['sort'] : 'created-at';
      const column = sortText.replace(/^-/, '');
      if (column !== 'created-at' && column !== 'expired-at') {
        throw badRequest('sort must be created-at or expired-at, optionally with a leading -', { title: 'bad request', parameter: 'sort' });
      }
      const filter: Omit<TeamTokenFilter, 'teamIds'> = {
        ...(typeof raw['q'] === 'string' && raw['q'] !== '' ? { teamName: raw['q'] } : {}),
        sort: { column, descending: sortText.startsWith('-') },
      };
      const { rows, total } = service.organizationTeamTokens(request.principal, request.params.organization, filter, page);
      return sendDocument(reply, 200, listDocument(request, { items: rows.map((row) => tokenResource(row)), total, page }));
    },
  );

  app.get('/teams/:teamId/authentication-token', { schema: { params: byTeam } }, async (request, reply) => {
    const { team } = teams.visible(request.principal, request.params.teamId, 'update-api-token');
    return sendDocument(reply, 200, singleDocument(tokenResource(service.ownedToken({ kind: 'team', teamId: team.id }))));
  });

  app.delete('/teams/:teamId/authentication-token', { schema: { params: byTeam } }, async (request, reply) => {
    const { team } = teams.visible(request.principal, request.params.teamId, 'update-api-token');
    service.revokeOwnedToken({ kind: 'team', teamId: team.id });
    return sendNoContent(reply);
  });

  // The organization token (or, with `?token=audit-trails`, its audit-trail token): one of each; POST replaces it.
  const organizationOwner = (request: { principal: Principal; params: { organization: string }; query: { token?: string } }) => {
    const kind = service.organizationTokenKind(request.query.token, context.config.edition);
    const organization = service.tokenOrganization(request.principal, request.params.organization);
    return { kind, organizationId: organization.id };
  };
  const schema = { params: byOrganization, querystring: TOKEN_QUERY };
  app.post('/organizations/:organization/authentication-token', { schema: { ...schema, body: TOKEN_BODY } }, async (request, reply) => {
    const issued = service.replaceOwnedToken(
      request.principal,
      organizationOwner(request),
      readInput(request.body, { description: false }),
    );
    return sendDocument(reply, 201, singleDocument(tokenResource(issued.row, issued.secret)));
  });

  app.get('/organizations/:organization/authentication-token', { schema }, async (request, reply) => {
    return sendDocument(reply, 200, singleDocument(tokenResource(service.ownedToken(organizationOwner(request)))));
  });

  app.delete('/organizations/:organization/authentication-token', { schema }, async (request, reply) => {
    service.revokeOwnedToken(organizationOwner(request));
    return sendNoContent(reply);
  });
}
