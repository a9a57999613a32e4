import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { TeamService } from '../teams/service.js';
import { tokenResource } from './resource.js';
import { TokenService, type TokenInput } from './service.js';

type Query = Record<string, unknown>;

/**
 * Body types real clients send for tokens: go-tfe's option structs carry no type (so `""`), the
 * documentation writes `authentication-token`, and the resource type is `authentication-tokens`.
 */
const TOKEN_TYPES = ['authentication-tokens', 'authentication-token'];

export async function tokenRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const service = new TokenService(context.store.db, context.clock);
  const teams = new TeamService(context.store.db, context.clock);

  /** A token body is optional (older clients POST nothing); every attribute is optional too. */
  const readInput = (body: unknown, options: { description: boolean }): TokenInput => {
    if (body === undefined) return {};
    const attributes = new Attributes(readResource(body, TOKEN_TYPES, { allowEmptyType: true }).attributes);
    const description = options.description ? attributes.string('description', { nullable: true, maxLength: 255 }) : undefined;
    const expiredAt = service.expiry(attributes.string('expired-at', { nullable: true }));
    return {
      ...(description !== undefined ? { description } : {}),
      ...(expiredAt !== undefined ? { expiredAt } : {}),
    };
  };

  // User tokens: the user themself, or a site administrator.
  app.post<{ Params: { userId: string } }>('/users/:userId/authentication-tokens', async (request, reply) => {
    const userId = service.tokenUser(request.principal, request.params.userId);
    const issued = service.createUserToken(request.principal, userId, readInput(request.body, { description: true }));
    return sendDocument(reply, 201, singleDocument(tokenResource(issued.row, issued.secret)));
  });

  app.get<{ Params: { userId: string } }>('/users/:userId/authentication-tokens', async (request, reply) => {
    const page = readPage(request.query as Query);
    const { rows, total } = service.listUserTokens(request.principal, request.params.userId, page);
    return sendDocument(reply, 200, listDocument(request, { items: rows.map((row) => tokenResource(row)), total, page }));
  });

  app.get<{ Params: { id: string } }>('/authentication-tokens/:id', async (request, reply) => {
    return sendDocument(reply, 200, singleDocument(tokenResource(service.manageable(request.principal, request.params.id))));
  });

  app.delete<{ Params: { id: string } }>('/authentication-tokens/:id', async (request, reply) => {
    service.revoke(request.principal, request.params.id);
    return sendNoContent(reply);
  });

  // The team token: one per team; POST replaces it.
  app.post<{ Params: { teamId: string } }>('/teams/:teamId/authentication-token', async (request, reply) => {
    const { team } = teams.visible(request.principal, request.params.teamId, 'update-api-token');
    const issued = service.replaceOwnedToken(request.principal, { kind: 'team', teamId: team.id }, readInput(request.body, { description: true }));
    return sendDocument(reply, 201, singleDocument(tokenResource(issued.row, issued.secret)));
  });

  app.get<{ Params: { teamId: string } }>('/teams/:teamId/authentication-token', async (request, reply) => {
    const { team } = teams.visible(request.principal, request.params.teamId, 'update-api-token');
    return sendDocument(reply, 200, singleDocument(tokenResource(service.ownedToken({ kind: 'team', teamId: team.id }))));
  });

  app.delete<{ Params: { teamId: string } }>('/teams/:teamId/authentication-token', async (request, reply) => {
    const { team } = teams.visible(request.principal, request.params.teamId, 'update-api-token');
    service.revokeOwnedToken({ kind: 'team', teamId: team.id });
    return sendNoContent(reply);
  });

  // The organization token: one per organization; POST replaces it.
  app.post<{ Params: { organization: string } }>('/organizations/:organization/authentication-token', async (request, reply) => {
    const organization = service.tokenOrganization(request.principal, request.params.organization);
    const owner = { kind: 'organization' as const, organizationId: organization.id };
    const issued = service.replaceOwnedToken(request.principal, owner, readInput(request.body, { description: false }));
    return sendDocument(reply, 201, singleDocument(tokenResource(issued.row, issued.secret)));
  });

  app.get<{ Params: { organization: string } }>('/organizations/:organization/authentication-token', async (request, reply) => {
    const organization = service.tokenOrganization(request.principal, request.params.organization);
    return sendDocument(reply, 200, singleDocument(tokenResource(service.ownedToken({ kind: 'organization', organizationId: organization.id }))));
  });

  app.delete<{ Params: { organization: string } }>('/organizations/:organization/authentication-token', async (request, reply) => {
    const organization = service.tokenOrganization(request.principal, request.params.organization);
    service.revokeOwnedToken({ kind: 'organization', organizationId: organization.id });
    return sendNoContent(reply);
  });
}
