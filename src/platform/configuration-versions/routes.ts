import type { FastifyRequest } from 'fastify';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, requestUrl, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import { uploadPath } from './links.js';
import { configurationVersionResource } from './resource.js';

const CREATE_BODY = resourceBody(['configuration-versions'], {
  attributes: {
    'auto-queue-runs': Attr.boolean('queue a run once the configuration is uploaded (default true)'),
    speculative: Attr.boolean('runs of this version are plan-only'),
    provisional: Attr.boolean('does not become the current configuration version'),
  },
});

type ById = { Params: { id: string } };

/** Configuration versions of a workspace; the slug itself arrives through the upload link (object-routes.ts). */
export async function configurationVersionRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.configurationVersions;
  const { dialect } = context.config;

  app.post<ById>(
    '/workspaces/:id/configuration-versions',
    { schema: { params: params('id'), body: CREATE_BODY } },
    async (request, reply) => {
      const located = service.workspaces.locate(request.principal, request.params.id);
      const attributes = new Attributes(readResource(request.body, ['configuration-versions']).attributes);
      const input = {
        autoQueueRuns: attributes.boolean('auto-queue-runs') ?? true,
        speculative: attributes.boolean('speculative') ?? false,
        provisional: attributes.boolean('provisional') ?? false,
      };
      const { version, secret } = service.create(located, input);
      const uploadUrl = `${requestUrl(request).origin}${uploadPath(version.id, secret)}`;
      return sendDocument(reply, 201, singleDocument(configurationVersionResource(version, dialect, uploadUrl)));
    },
  );

  app.get<ById>(
    '/workspaces/:id/configuration-versions',
    { schema: { params: params('id'), querystring: listQuery() } },
    async (request, reply) => {
      const located = service.workspaces.locate(request.principal, request.params.id);
      const page = readPage(request.query as Record<string, unknown>);
      const { rows, total } = service.list(located, page.offset, page.size);
      const items = rows.map((row) => configurationVersionResource(row, dialect));
      return sendDocument(reply, 200, listDocument(request, { items, total, page }));
    },
  );

  const show = { params: params('id'), querystring: showQuery(['ingress_attributes']) };
  app.get<ById>('/configuration-versions/:id', { schema: show }, async (request: FastifyRequest<ById>, reply) => {
    const { version } = service.locate(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(configurationVersionResource(version, dialect)));
  });

  app.post<ById>('/configuration-versions/:id/actions/archive', { schema: { params: params('id') } }, async (request, reply) => {
    service.archiveVersion(request.principal, request.params.id);
    return reply.code(202).send();
  });

  app.get<ById>(
    '/configuration-versions/:id/download',
    { config: { taskAccess: true }, schema: { params: params('id') } },
    async (request, reply) => {
      const { taskRunId } = request;
      const archive = taskRunId
        ? service.taskDownload(request.params.id, context.services.runs.taskConfigurationVersion(taskRunId))
        : service.download(request.principal, request.params.id);
      return reply.code(200).type('application/x-gzip').send(archive);
    },
  );
}
