import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { unprocessable } from '../../core/errors.js';
import type { Principal } from '../auth/principal.js';
import type { PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, resourceBody } from '../jsonapi/schemas.js';
import { moduleResource, versionResource } from './resource.js';
import { type Loaded, type ModuleAddress, type UpdateModule } from './service.js';
import type { VersionSummary } from './repo.js';
import { moduleIncludes } from './view.js';

const Segment = Type.String({ minLength: 1 });
const OrgParams = Type.Object({ org: Segment });
const NameParams = Type.Object({ org: Segment, registry: Segment, namespace: Segment, name: Segment });
const ProviderParams = Type.Object({ ...NameParams.properties, provider: Segment });
const VersionParams = Type.Object({ ...ProviderParams.properties, version: Segment });
const DeprecatedParams = Type.Object({ org: Segment, name: Segment, provider: Segment });
const ResourceBody = Type.Object({ data: Type.Object({ type: Type.String(), attributes: Type.Optional(Type.Object({})) }) });
const ListQuery = Type.Object({
  q: Type.Optional(Type.String()),
  'filter[registry_name]': Type.Optional(Type.String()),
  'filter[provider]': Type.Optional(Type.String()),
  'filter[organization_name]': Type.Optional(Type.String()),
  'page[number]': Type.Optional(Type.String()),
  'page[size]': Type.Optional(Type.String()),
  include: Type.Optional(Type.String({ description: 'no-code-modules' })),
});
const ShowQuery = Type.Object({ include: Type.Optional(Type.String({ description: 'no-code-modules' })) });
const MODULE_UPDATE_BODY = resourceBody(['registry-modules'], {
  attributes: { 'no-code': Attr.boolean(), 'vcs-repo': Attr.object(), 'test-config': Attr.object() },
  relationships: ['tag-bindings'],
});

const unsupported = (what: string, pointer: string) => unprocessable(`${what} is not supported by understudy`, pointer);

/**
 * A module `PATCH` as go-tfe sends it. `no-code` is kept; what understudy does not model is refused
 * only when it would change something: branch-based publishing, source directories and tag
 * prefixes, module tests, and tag bindings (go-tfe always sends `tag-bindings`, empty unless set).
 */
function readModuleUpdate(body: unknown): UpdateModule {
  const resource = readResource(body, ['registry-modules']);
  const attributes = new Attributes(resource.attributes);
  const vcs = attributes.nested('vcs-repo');
  if (vcs) {
    if (vcs.string('branch')) throw unsupported('branch-based publishing', '/data/attributes/vcs-repo/branch');
    if (vcs.string('source-directory')) throw unsupported('source-directory', '/data/attributes/vcs-repo/source-directory');
    if (vcs.string('tag-prefix')) throw unsupported('tag-prefix', '/data/attributes/vcs-repo/tag-prefix');
    if (vcs.boolean('tags') === false) throw unsupported('branch-based publishing', '/data/attributes/vcs-repo/tags');
  }
  if (attributes.nested('test-config')?.boolean('tests-enabled')) throw unsupported('module testing', '/data/attributes/test-config');
  const bindings = resource.relationships['tag-bindings'];
  const bound = typeof bindings === 'object' && bindings !== null ? (bindings as { data?: unknown }).data : undefined;
  if (Array.isArray(bound) && bound.length > 0) throw unsupported('tag bindings on registry modules', '/data/relationships/tag-bindings');
  const noCode = attributes.boolean('no-code');
  return noCode === undefined ? {} : { noCode };
}

export const baseUrlOf = (request: FastifyRequest) => `${request.protocol}://${request.host}`;
export const uploadUrl = (request: FastifyRequest, secret: string | null) =>
  secret === null ? null : `${baseUrlOf(request)}/api/registry/uploads/v1/object/${secret}`;

/** The management API of the module registry (spec document 2), deprecated paths included. */
export async function registryRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const service = context.services.registry;
  const vcs = context.services.vcs;

  const moduleDocument = (request: FastifyRequest, loaded: Loaded) =>
    moduleResource({
      ...loaded,
      organizationName: loaded.organization.name,
      baseUrl: baseUrlOf(request),
      webhookSecret: service.webhookSecret(loaded.module),
    });
  /** `include=no-code-modules` (list and reads): each module's no-code module in `included`. */
  const includedOf = (request: FastifyRequest, loaded: Loaded[]) =>
    moduleIncludes.collect(moduleIncludes.read(request.query as Record<string, unknown>), loaded);
  const sendModule = (request: FastifyRequest, reply: FastifyReply, status: number, loaded: Loaded) =>
    sendDocument(reply, status, singleDocument(moduleDocument(request, loaded), includedOf(request, [loaded])));
  const sendVersion = (request: FastifyRequest, reply: FastifyReply, version: VersionSummary) =>
    sendDocument(
      reply,
      201,
      singleDocument(versionResource(version, uploadUrl(request, service.uploadSecret(version)), context.config.dialect)),
    );

  const createVersion = (request: FastifyRequest, principal: Principal, org: string, address: ModuleAddress) => {
    const attributes = new Attributes(readResource(request.body, ['registry-module-versions']).attributes);
    const version = attributes.string('version', { required: true }) as string;
    return service.createVersion(principal, org, address, version);
  };

  app.get<{ Params: Static<typeof OrgParams>; Querystring: Static<typeof ListQuery> }>(
    '/organizations/:org/registry-modules',
    { schema: { params: OrgParams, querystring: ListQuery } },
    async (request, reply) => {
      const query = request.query;
      const page = readPage(query);
      moduleIncludes.read(query);
      const filterOrganization = query['filter[organization_name]'] || undefined;
      const { items, total } = service.list(
        request.principal,
        request.params.org,
        {
          ...(query.q ? { q: query.q } : {}),
          ...(query['filter[registry_name]'] ? { registryName: query['filter[registry_name]'] } : {}),
          ...(query['filter[provider]'] ? { provider: query['filter[provider]'] } : {}),
          // Modules of another organization never appear in this organization's list.
          ...(filterOrganization !== undefined && filterOrganization !== request.params.org ? { name: '\0none' } : {}),
        },
        page.offset,
        page.size,
      );
      return sendDocument(
        reply,
        200,
        listDocument(
          request,
          { items: items.map((loaded) => moduleDocument(request, loaded)), total, page },
          { included: includedOf(request, items) },
        ),
      );
    },
  );

  app.post<{ Params: Static<typeof OrgParams> }>(
    '/organizations/:org/registry-modules',
    { schema: { params: OrgParams, body: ResourceBody } },
    async (request, reply) => {
      const attributes = new Attributes(readResource(request.body, ['registry-modules']).attributes);
      const registryName = attributes.string('registry-name') ?? 'private';
      if (registryName !== 'private' && registryName !== 'public')
        throw unprocessable('registry-name must be "public" or "private"', '/data/attributes/registry-name');
      const namespace = attributes.string('namespace') ?? undefined;
      const loaded = service.create(request.principal, request.params.org, {
        name: attributes.string('name', { required: true }) as string,
        provider: attributes.string('provider', { required: true }) as string,
        registryName,
        noCode: attributes.boolean('no-code') ?? false,
        ...(namespace !== undefined ? { namespace } : {}),
      });
      return sendModule(request, reply, 201, loaded);
    },
  );

  app.post<{ Params: Static<typeof OrgParams> }>(
    '/organizations/:org/registry-modules/vcs',
    { schema: { params: OrgParams, body: ResourceBody } },
    async (request, reply) => {
      return sendModule(request, reply, 201, await vcs.publish(request.principal, request.body, request.params.org));
    },
  );

  // Deprecated: publishing from VCS where the connection alone names the organization.
  app.post('/registry-modules', { schema: { body: ResourceBody } }, async (request, reply) => {
    return sendModule(request, reply, 201, await vcs.publish(request.principal, request.body, null));
  });

  app.get<{ Params: Static<typeof ProviderParams> }>(
    '/organizations/:org/registry-modules/:registry/:namespace/:name/:provider',
    { schema: { params: ProviderParams, querystring: ShowQuery } },
    async (request, reply) => {
      const { org, registry, ...rest } = request.params;
      return sendModule(request, reply, 200, service.get(request.principal, org, { registryName: registry, ...rest }));
    },
  );

  app.patch<{ Params: Static<typeof ProviderParams> }>(
    '/organizations/:org/registry-modules/:registry/:namespace/:name/:provider',
    { schema: { params: ProviderParams, body: MODULE_UPDATE_BODY } },
    async (request, reply) => {
      const { org, registry, ...rest } = request.params;
      const input = readModuleUpdate(request.body);
      return sendModule(request, reply, 200, service.update(request.principal, org, { registryName: registry, ...rest }, input));
    },
  );

  // go-tfe's ReadVersion: one version of a private module by `module_version`.
  app.get<{ Params: Static<typeof ProviderParams>; Querystring: { module_version?: string } }>(
    '/organizations/:org/registry-modules/:registry/:namespace/:name/:provider/version',
    { schema: { params: ProviderParams, querystring: Type.Object({ module_version: Type.Optional(Type.String()) }) } },
    async (request, reply) => {
      const { org, registry, ...rest } = request.params;
      const version = service.version(request.principal, org, { registryName: registry, ...rest }, request.query.module_version ?? '');
      return sendDocument(
        reply,
        200,
        singleDocument(versionResource(version, uploadUrl(request, service.uploadSecret(version)), context.config.dialect)),
      );
    },
  );

  app.get<{ Params: { id: string } }>(
    '/registry-modules/:id',
    { schema: { params: Type.Object({ id: Segment }), querystring: ShowQuery } },
    async (request, reply) => {
      return sendModule(request, reply, 200, service.getById(request.principal, request.params.id));
    },
  );

  app.get<{ Params: Static<typeof DeprecatedParams> }>(
    '/registry-modules/show/:org/:name/:provider',
    { schema: { params: DeprecatedParams } },
    async (request, reply) => {
      const { org, name, provider } = request.params;
      return sendModule(
        request,
        reply,
        200,
        service.get(request.principal, org, { registryName: 'private', namespace: org, name, provider }),
      );
    },
  );

  app.post<{ Params: Static<typeof ProviderParams> }>(
    '/organizations/:org/registry-modules/:registry/:namespace/:name/:provider/versions',
    { schema: { params: ProviderParams, body: ResourceBody } },
    async (request, reply) => {
      const { org, registry, ...rest } = request.params;
      return sendVersion(request, reply, createVersion(request, request.principal, org, { registryName: registry, ...rest }));
    },
  );

  app.post<{ Params: Static<typeof DeprecatedParams> }>(
    '/registry-modules/:org/:name/:provider/versions',
    { schema: { params: DeprecatedParams, body: ResourceBody } },
    async (request, reply) => {
      const { org, name, provider } = request.params;
      return sendVersion(
        request,
        reply,
        createVersion(request, request.principal, org, { registryName: 'private', namespace: org, name, provider }),
      );
    },
  );

  const destroy = (
    principal: Principal,
    params: { org: string; registry: string; namespace: string; name: string; provider?: string; version?: string },
  ) => {
    const { org, registry, ...rest } = params;
    service.destroy(principal, org, { registryName: registry, ...rest });
  };

  for (const [path, schema] of [
    ['/organizations/:org/registry-modules/:registry/:namespace/:name', NameParams],
    ['/organizations/:org/registry-modules/:registry/:namespace/:name/:provider', ProviderParams],
    ['/organizations/:org/registry-modules/:registry/:namespace/:name/:provider/:version', VersionParams],
  ] as const) {
    app.delete<{ Params: Static<typeof VersionParams> }>(path, { schema: { params: schema } }, async (request, reply) => {
      destroy(request.principal, request.params);
      return sendNoContent(reply);
    });
  }

  // Deprecated deletes. By name alone: the private module and curated public records of that name.
  app.post<{ Params: { org: string; name: string } }>(
    '/registry-modules/actions/delete/:org/:name',
    { schema: { params: Type.Object({ org: Segment, name: Segment }) } },
    async (request, reply) => {
      service.destroyNamed(request.principal, request.params.org, request.params.name);
      return sendNoContent(reply);
    },
  );
  // With a provider (and version): private modules only, the namespace is the organization.
  for (const [path, schema] of [
    ['/registry-modules/actions/delete/:org/:name/:provider', DeprecatedParams],
    ['/registry-modules/actions/delete/:org/:name/:provider/:version', Type.Object({ ...DeprecatedParams.properties, version: Segment })],
  ] as const) {
    app.post<{ Params: { org: string; name: string; provider?: string; version?: string } }>(
      path,
      { schema: { params: schema } },
      async (request, reply) => {
        destroy(request.principal, { ...request.params, registry: 'private', namespace: request.params.org });
        return sendNoContent(reply);
      },
    );
  }
}
