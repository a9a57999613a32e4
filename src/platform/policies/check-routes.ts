import type { PlatformApp, PlatformContext } from '../context.js';
import { listDocument, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { listQuery, params } from '../jsonapi/schemas.js';
import { policyCheckResource } from './check-resource.js';

export async function policyCheckRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.policyChecks;

  app.get('/runs/:id/policy-checks', { schema: { params: params('id'), querystring: listQuery() } }, async (request, reply) => {
    const rows = service.listForRun(request.principal, request.params.id);
    const items = rows.map((row) => {
      const { run, canOverride } = service.visible(request.principal, row.id);
      return policyCheckResource(row, { overridable: service.isOverridable(row, run), canOverride });
    });
    return sendDocument(reply, 200, listDocument(request, paginate(items, readPage(request.query))));
  });

  app.get('/policy-checks/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const { row, run, canOverride } = service.visible(request.principal, request.params.id);
    return sendDocument(
      reply,
      200,
      singleDocument(policyCheckResource(row, { overridable: service.isOverridable(row, run), canOverride })),
    );
  });

  app.post('/policy-checks/:id/actions/override', { schema: { params: params('id') } }, async (request, reply) => {
    const row = service.override(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(policyCheckResource(row, { overridable: false, canOverride: true })));
  });

  app.get('/policy-checks/:id/output', { schema: { params: params('id') } }, async (request, reply) => {
    return reply.code(200).type('text/plain').send(service.output(request.principal, request.params.id));
  });
}
