import { unprocessable } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource, relationshipId } from '../jsonapi/body.js';
import { sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { Attr, params, resourceBody } from '../jsonapi/schemas.js';
import { PLAN_EXPORT_TYPES, planExportResource } from './plan-exports.js';

const TYPES = ['plan-exports'];
const BODY = resourceBody(TYPES, {
  attributes: { 'data-type': Attr.string('sentinel-mock-bundle-v0') },
  relationships: ['plan'],
});

export async function planExportRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.planExports;

  app.post('/plan-exports', { schema: { body: BODY } }, async (request, reply) => {
    const body = readResource(request.body, TYPES);
    const dataType = new Attributes(body.attributes).string('data-type', { required: true }) as string;
    if (!(PLAN_EXPORT_TYPES as readonly string[]).includes(dataType)) {
      throw unprocessable(`data-type must be one of ${PLAN_EXPORT_TYPES.join(', ')}`, '/data/attributes/data-type');
    }
    const planId = relationshipId(body.relationships, 'plan', 'plans');
    if (!planId) throw unprocessable('plan is required', '/data/relationships/plan');
    return sendDocument(reply, 201, singleDocument(planExportResource(service.create(request.principal, planId, dataType))));
  });

  app.get('/plan-exports/:id', { schema: { params: params('id') } }, async (request, reply) => {
    return sendDocument(reply, 200, singleDocument(planExportResource(service.show(request.principal, request.params.id))));
  });

  app.get('/plan-exports/:id/download', { schema: { params: params('id') } }, async (request, reply) => {
    const bundle = service.download(request.principal, request.params.id);
    return reply.code(200).type('application/octet-stream').send(bundle);
  });

  app.delete('/plan-exports/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
