import { Type } from '@fastify/type-provider-typebox';
import type { PlatformApp, PlatformContext } from '../context.js';
import { listDocument, sendDocument } from '../jsonapi/documents.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { listQuery, params } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { effectiveTagBindingResource, tagBindingResource } from './resource.js';
import { readTagBindings } from './rules.js';

const ENTRY = 'each entry must have type "tag-bindings" and attributes key and value';
/** `{"data": [{"type": "tag-bindings", "attributes": {"key", "value"}}]}`; the reader checks the rest. */
const BINDINGS_BODY = Type.Object(
  {
    data: Type.Array(
      Type.Object(
        {
          type: Type.String({ errorMessage: ENTRY }),
          id: Type.Optional(Type.Unknown()),
          attributes: Type.Optional(
            Type.Object({ key: Type.Optional(Type.String()), value: Type.Optional(Type.Union([Type.String(), Type.Null()])) }),
          ),
        },
        { errorMessage: ENTRY },
      ),
      { errorMessage: 'the body must be a document with a data array' },
    ),
  },
  { errorMessage: 'the body must be a document with a data array' },
);

type Query = Record<string, unknown>;

/**
 * Key/value tag bindings: `GET`/`PATCH /workspaces/:id/tag-bindings`, `/projects/:id/tag-bindings`
 * and their `effective-tag-bindings`. PATCH adds keys or changes their values and answers with
 * the whole set; removing every binding is a PATCH of the workspace or project with an empty
 * `tag-bindings` relationship, as real clients do it.
 */
export async function tagBindingRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const { db } = context.store;
  const { workspaces, projects, tagBindings } = context.services;
  const list = listQuery();
  const send = (request: Parameters<typeof listDocument>[0], items: ResourceObject[]) =>
    listDocument(request, paginate(items, readPage(request.query as Query)));

  app.get('/workspaces/:id/tag-bindings', { schema: { params: params('id'), querystring: list } }, async (request, reply) => {
    const { workspace, organization } = workspaces.require(workspaces.locate(request.principal, request.params.id));
    const rows = tagBindings.list({ organizationId: organization.id, workspaceId: workspace.id });
    return sendDocument(reply, 200, send(request, rows.map(tagBindingResource)));
  });

  app.patch('/workspaces/:id/tag-bindings', { schema: { params: params('id'), body: BINDINGS_BODY } }, async (request, reply) => {
    const { workspace, organization } = workspaces.require(workspaces.locate(request.principal, request.params.id), 'can-manage-tags');
    const inputs = readTagBindings(request.body, '/data');
    const owner = { organizationId: organization.id, workspaceId: workspace.id };
    const rows = db.transaction((tx) => tagBindings.merge(tx, owner, inputs, '/data'));
    return sendDocument(reply, 200, send(request, rows.map(tagBindingResource)));
  });

  app.get('/workspaces/:id/effective-tag-bindings', { schema: { params: params('id'), querystring: list } }, async (request, reply) => {
    const { workspace } = workspaces.require(workspaces.locate(request.principal, request.params.id));
    const effective = tagBindings.effectiveOf([workspace]).get(workspace.id) ?? [];
    return sendDocument(reply, 200, send(request, effective.map(effectiveTagBindingResource)));
  });

  app.get('/projects/:id/tag-bindings', { schema: { params: params('id'), querystring: list } }, async (request, reply) => {
    const { project, organization } = projects.locate(request.principal, request.params.id);
    const rows = tagBindings.list({ organizationId: organization.id, projectId: project.id });
    return sendDocument(reply, 200, send(request, rows.map(tagBindingResource)));
  });

  app.patch('/projects/:id/tag-bindings', { schema: { params: params('id'), body: BINDINGS_BODY } }, async (request, reply) => {
    const located = projects.locate(request.principal, request.params.id);
    projects.requireManage(located);
    const inputs = readTagBindings(request.body, '/data');
    const owner = { organizationId: located.organization.id, projectId: located.project.id };
    const rows = db.transaction((tx) => tagBindings.merge(tx, owner, inputs, '/data'));
    return sendDocument(reply, 200, send(request, rows.map(tagBindingResource)));
  });

  app.get('/projects/:id/effective-tag-bindings', { schema: { params: params('id'), querystring: list } }, async (request, reply) => {
    const { project } = projects.locate(request.principal, request.params.id);
    const effective = tagBindings.projectEffectiveOf([project.id]).get(project.id) ?? [];
    return sendDocument(reply, 200, send(request, effective.map(effectiveTagBindingResource)));
  });
}
