import type { FastifyReply, FastifyRequest } from 'fastify';
import { unprocessable } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { readIdentifierList } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { identifierListBody, listQuery, params } from '../jsonapi/schemas.js';
import { renderOptions } from '../workspaces/documents.js';
import { type ConsumerChange } from './service.js';

type ById = { Params: { id: string } };
const PATH = '/workspaces/:id/relationships/remote-state-consumers';

export async function remoteStateRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.remoteState;

  app.get(PATH, { schema: { params: params('id'), querystring: listQuery() } }, async (request, reply) => {
    const page = readPage(request.query);
    const { located, rows, total } = service.list(request.principal, request.params.id, page);
    // The same renderer as every other workspace response, so a consumer looks exactly as when shown alone.
    const items = context.services.workspaceViews.render(located.scope, located.organization, rows, renderOptions(context, request));
    return sendDocument(reply, 200, listDocument(request, { items, total, page }));
  });

  // Real clients send whole workspace objects as the elements; only `type` and `id` count. The body
  // is read after the permission checks, so a caller without access learns nothing from a 422.
  const readIds = (body: unknown) => () =>
    readIdentifierList(body, 'workspaces').map((entry, index) => {
      if (entry.id === undefined) throw unprocessable('each entry needs the id of a workspace', `/data/${index}/id`);
      return entry.id;
    });
  const change = (kind: ConsumerChange) => async (request: FastifyRequest<ById>, reply: FastifyReply) => {
    service.change(request.principal, request.params.id, kind, readIds(request.body));
    return sendNoContent(reply);
  };
  const schema = { params: params('id'), body: identifierListBody('workspaces') };
  app.patch<ById>(PATH, { schema }, change('replace'));
  app.post<ById>(PATH, { schema }, change('add'));
  app.delete<ById>(PATH, { schema }, change('remove'));
}
