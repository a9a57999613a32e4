import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { queryList } from '../jsonapi/query.js';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import type { OrganizationPermission } from '../auth/permissions.js';
import { readTaggedFilter } from '../tag-bindings/rules.js';
import type { ProjectRow } from './repo.js';
import { projectIncludes } from './view.js';
import type { Principal } from '../auth/principal.js';
import type { LocatedProject, ProjectInput } from './service.js';
import { readTagBindings } from '../tag-bindings/rules.js';

/** `include` values of the project endpoints (the real client's `ProjectEffectiveTagBindings`). */
const PROJECT_INCLUDES = projectIncludes.names;

const PROJECT_BODY = resourceBody(['projects'], {
  attributes: {
    name: Attr.string('3 to 40 letters, numbers, spaces, - or _'),
    description: Attr.string(),
    'auto-destroy-activity-duration': Attr.string('up to 4 digits and d or h, such as "14d" or "2h"; null turns it off'),
  },
  relationships: ['tag-bindings'],
});

function readProjectInput(body: unknown): ProjectInput {
  const resource = readResource(body, ['projects']);
  const attributes = new Attributes(resource.attributes);
  const name = attributes.string('name') ?? undefined;
  const description = attributes.string('description', { nullable: true });
  const duration = attributes.string('auto-destroy-activity-duration', { nullable: true });
  const bindings = resource.relationships['tag-bindings'];
  return {
    ...(name !== undefined ? { name } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(duration !== undefined ? { autoDestroyActivityDuration: duration } : {}),
    ...(bindings !== undefined && bindings !== null
      ? { tagBindings: readTagBindings(bindings, '/data/relationships/tag-bindings/data') }
      : {}),
  };
}

/** Projects: create, list (`q`, `filter[names]`), show, update and delete. */
export async function projectRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.projects;
  const views = context.services.projectViews;
  const render = (
    request: { query: unknown; principal: Principal },
    rows: readonly ProjectRow[],
    organization: LocatedProject['organization'],
    grants: ReadonlySet<OrganizationPermission>,
  ) => views.render(request.principal, rows, organization, grants, projectIncludes.read(request.query as Record<string, unknown>));
  const one = (request: { query: unknown; principal: Principal }, { project, organization, grants }: LocatedProject) => {
    const { items, included } = render(request, [project], organization, grants);
    return singleDocument(items[0] as NonNullable<(typeof items)[number]>, included);
  };

  app.get(
    '/organizations/:org/projects',
    { schema: { params: params('org'), querystring: listQuery({ includes: PROJECT_INCLUDES, filters: ['q', 'filter[names]'] }) } },
    async (request, reply) => {
      const page = readPage(request.query);
      const q = queryList(request.query, 'q').join(',');
      const names = queryList(request.query, 'filter[names]');
      const tagged = readTaggedFilter(request.query);
      const { organization, grants, rows, total } = service.list(
        request.principal,
        request.params.org,
        { ...(q ? { q } : {}), names, ...(tagged.length > 0 ? { tagged } : {}) },
        page.offset,
        page.size,
      );
      const { items, included } = render(request, rows, organization, grants);
      return sendDocument(reply, 200, listDocument(request, { items, total, page }, { included }));
    },
  );

  const show = showQuery(PROJECT_INCLUDES);
  app.post(
    '/organizations/:org/projects',
    { schema: { params: params('org'), querystring: show, body: PROJECT_BODY } },
    async (request, reply) => {
      projectIncludes.read(request.query);
      return sendDocument(reply, 201, one(request, service.create(request.principal, request.params.org, readProjectInput(request.body))));
    },
  );

  app.get('/projects/:id', { schema: { params: params('id'), querystring: show } }, async (request, reply) => {
    return sendDocument(reply, 200, one(request, service.locate(request.principal, request.params.id)));
  });

  app.patch('/projects/:id', { schema: { params: params('id'), querystring: show, body: PROJECT_BODY } }, async (request, reply) => {
    projectIncludes.read(request.query);
    const located = service.locate(request.principal, request.params.id);
    return sendDocument(reply, 200, one(request, service.update(located, readProjectInput(request.body))));
  });

  app.delete('/projects/:id', { schema: { params: params('id') } }, async (request, reply) => {
    service.destroy(service.locate(request.principal, request.params.id));
    return sendNoContent(reply);
  });
}
