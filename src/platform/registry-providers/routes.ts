import { Type, type Static } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { unprocessable } from '../../core/errors.js';
import type { PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { Attr, listQuery, resourceBody, showQuery } from '../jsonapi/schemas.js';
import { baseUrlOf } from '../registry/routes.js';
import { platformResource, providerResource, versionResource, type LinkMaker } from './resource.js';
import { providerIncludes } from './view.js';
import type { LoadedProvider, ProviderAddress } from './service.js';

const Segment = Type.String({ minLength: 1 });
const OrgParams = Type.Object({ org: Segment });
const ProviderParams = Type.Object({ org: Segment, registry: Segment, namespace: Segment, name: Segment });
const VersionParams = Type.Object({ ...ProviderParams.properties, version: Segment });
const PlatformParams = Type.Object({ ...VersionParams.properties, os: Segment, arch: Segment });
const INCLUDES = providerIncludes.names;
const ListQuery = Type.Object({
  ...listQuery({ includes: INCLUDES }).properties,
  q: Type.Optional(Type.String()),
  'filter[registry_name]': Type.Optional(Type.String()),
  'filter[organization_name]': Type.Optional(Type.String()),
});
const CREATE_BODY = resourceBody(['registry-providers'], {
  attributes: { name: Attr.string(), namespace: Attr.string(), 'registry-name': Attr.string('private or public') },
});
const UPDATE_BODY = resourceBody(['registry-providers'], { relationships: ['tag-bindings'], allowEmptyType: true });
const VERSION_BODY = resourceBody(['registry-provider-versions'], {
  attributes: { version: Attr.string(), 'key-id': Attr.string(), protocols: Attr.strings('e.g. ["5.0"]') },
});
const PLATFORM_BODY = resourceBody(['registry-provider-platforms'], {
  attributes: { os: Attr.string(), arch: Attr.string(), shasum: Attr.string(), filename: Attr.string() },
});

const addressOf = (params: Static<typeof ProviderParams>): ProviderAddress => ({
  organizationName: params.org,
  registryName: params.registry,
  namespace: params.namespace,
  name: params.name,
});

/** The management API of private registry providers, their versions and platforms (`/api/v2`). */
export async function registryProviderRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const service = context.services.registryProviders;
  const protocol = context.services.providerProtocol;

  const linksFor = (request: FastifyRequest): LinkMaker => {
    const base = baseUrlOf(request);
    return {
      upload: (sealed) => {
        const secret = service.openSecret(sealed);
        return secret === null ? null : protocol.uploadLink(base, secret);
      },
      download: (id, file) => protocol.fileLink(base, id, file),
    };
  };
  const providerDocument = (loaded: LoadedProvider) =>
    providerResource(loaded.provider, loaded.organization.name, loaded.versions, loaded.canManage);
  /** `include=registry-provider-versions`: each provider's versions in `included`. */
  const includedOf = (request: FastifyRequest, loaded: LoadedProvider[]) =>
    providerIncludes.collect(providerIncludes.read(request.query as Record<string, unknown>), {
      loaded,
      platformsOf: (ids) => service.platformsOf(ids),
      links: linksFor(request),
    });

  app.get<{ Params: Static<typeof OrgParams>; Querystring: Static<typeof ListQuery> }>(
    '/organizations/:org/registry-providers',
    { schema: { params: OrgParams, querystring: ListQuery } },
    async (request, reply) => {
      const { query } = request;
      const page = readPage(query);
      providerIncludes.read(query);
      const otherOrganization = query['filter[organization_name]'] && query['filter[organization_name]'] !== request.params.org;
      const filter = {
        ...(query.q ? { q: query.q } : {}),
        // A registry name that is neither matches nothing, as a filter on an unknown value does.
        ...(query['filter[registry_name]'] ? { registryName: query['filter[registry_name]'] } : {}),
      };
      const { items, total } = otherOrganization
        ? { items: [], total: 0 }
        : service.list(request.principal, request.params.org, filter, page.offset, page.size);
      return sendDocument(
        reply,
        200,
        listDocument(request, { items: items.map(providerDocument), total, page }, { included: includedOf(request, items) }),
      );
    },
  );

  app.post<{ Params: Static<typeof OrgParams> }>(
    '/organizations/:org/registry-providers',
    { schema: { params: OrgParams, body: CREATE_BODY } },
    async (request, reply) => {
      const attributes = new Attributes(readResource(request.body, ['registry-providers']).attributes);
      const loaded = service.create(request.principal, request.params.org, {
        name: attributes.string('name'),
        namespace: attributes.string('namespace'),
        registryName: attributes.string('registry-name'),
      });
      return sendDocument(reply, 201, singleDocument(providerDocument(loaded)));
    },
  );

  app.get<{ Params: Static<typeof ProviderParams> }>(
    '/organizations/:org/registry-providers/:registry/:namespace/:name',
    { schema: { params: ProviderParams, querystring: showQuery(INCLUDES) } },
    async (request, reply) => {
      const loaded = service.get(request.principal, addressOf(request.params));
      return sendDocument(reply, 200, singleDocument(providerDocument(loaded), includedOf(request, [loaded])));
    },
  );

  app.get<{ Params: { id: string } }>(
    '/registry-providers/:id',
    { schema: { params: Type.Object({ id: Segment }), querystring: showQuery(INCLUDES) } },
    async (request, reply) => {
      const loaded = service.getById(request.principal, request.params.id);
      return sendDocument(reply, 200, singleDocument(providerDocument(loaded), includedOf(request, [loaded])));
    },
  );

  // Only tag bindings can change on a provider; understudy keeps none, so only an empty set is accepted.
  app.patch<{ Params: Static<typeof ProviderParams> }>(
    '/organizations/:org/registry-providers/:registry/:namespace/:name',
    { schema: { params: ProviderParams, body: UPDATE_BODY } },
    async (request, reply) => {
      const bindings = readResource(request.body, ['registry-providers'], { allowEmptyType: true }).relationships['tag-bindings'];
      const bound = typeof bindings === 'object' && bindings !== null ? (bindings as { data?: unknown }).data : undefined;
      if (Array.isArray(bound) && bound.length > 0) {
        throw unprocessable('tag bindings on registry providers are not supported by understudy', '/data/relationships/tag-bindings');
      }
      return sendDocument(reply, 200, singleDocument(providerDocument(service.update(request.principal, addressOf(request.params)))));
    },
  );

  app.delete<{ Params: Static<typeof ProviderParams> }>(
    '/organizations/:org/registry-providers/:registry/:namespace/:name',
    { schema: { params: ProviderParams } },
    async (request, reply) => {
      service.destroy(request.principal, addressOf(request.params));
      return sendNoContent(reply);
    },
  );

  const versionsPath = '/organizations/:org/registry-providers/:registry/:namespace/:name/versions';
  app.get<{ Params: Static<typeof ProviderParams>; Querystring: Static<typeof ListQuery> }>(
    versionsPath,
    { schema: { params: ProviderParams, querystring: listQuery() } },
    async (request, reply) => {
      const page = readPage(request.query);
      const { items, total } = service.listVersions(request.principal, addressOf(request.params), page.offset, page.size);
      const links = linksFor(request);
      const data = items.map((loaded) => versionResource(loaded.provider, loaded.version, loaded.platforms, loaded.canManage, links));
      return sendDocument(reply, 200, listDocument(request, { items: data, total, page }));
    },
  );

  app.post<{ Params: Static<typeof ProviderParams> }>(
    versionsPath,
    { schema: { params: ProviderParams, body: VERSION_BODY } },
    async (request, reply) => {
      const attributes = new Attributes(readResource(request.body, ['registry-provider-versions']).attributes);
      const loaded = service.createVersion(request.principal, addressOf(request.params), {
        version: attributes.string('version'),
        keyId: attributes.string('key-id'),
        protocols: attributes.stringArray('protocols'),
      });
      const document = versionResource(loaded.provider, loaded.version, loaded.platforms, loaded.canManage, linksFor(request));
      return sendDocument(reply, 201, singleDocument(document));
    },
  );

  const versionPath = `${versionsPath}/:version`;
  app.get<{ Params: Static<typeof VersionParams> }>(versionPath, { schema: { params: VersionParams } }, async (request, reply) => {
    const loaded = service.getVersion(request.principal, addressOf(request.params), request.params.version);
    const document = versionResource(loaded.provider, loaded.version, loaded.platforms, loaded.canManage, linksFor(request));
    return sendDocument(reply, 200, singleDocument(document));
  });

  app.delete<{ Params: Static<typeof VersionParams> }>(versionPath, { schema: { params: VersionParams } }, async (request, reply) => {
    service.destroyVersion(request.principal, addressOf(request.params), request.params.version);
    return sendNoContent(reply);
  });

  const platformsPath = `${versionPath}/platforms`;
  app.get<{ Params: Static<typeof VersionParams>; Querystring: Static<typeof ListQuery> }>(
    platformsPath,
    { schema: { params: VersionParams, querystring: listQuery() } },
    async (request, reply) => {
      const page = readPage(request.query);
      const loaded = service.getVersion(request.principal, addressOf(request.params), request.params.version);
      const links = linksFor(request);
      const all = loaded.platforms.map((platform) => platformResource(platform, loaded.canManage, links));
      return sendDocument(
        reply,
        200,
        listDocument(request, { items: all.slice(page.offset, page.offset + page.size), total: all.length, page }),
      );
    },
  );

  app.post<{ Params: Static<typeof VersionParams> }>(
    platformsPath,
    { schema: { params: VersionParams, body: PLATFORM_BODY } },
    async (request, reply) => {
      const attributes = new Attributes(readResource(request.body, ['registry-provider-platforms']).attributes);
      const platform = service.createPlatform(request.principal, addressOf(request.params), request.params.version, {
        os: attributes.string('os'),
        arch: attributes.string('arch'),
        shasum: attributes.string('shasum'),
        filename: attributes.string('filename'),
      });
      return sendDocument(reply, 201, singleDocument(platformResource(platform, true, linksFor(request))));
    },
  );

  const platformPath = `${platformsPath}/:os/:arch`;
  app.get<{ Params: Static<typeof PlatformParams> }>(platformPath, { schema: { params: PlatformParams } }, async (request, reply) => {
    const { version, os, arch } = request.params;
    const { platform, canManage } = service.getPlatform(request.principal, addressOf(request.params), version, os, arch);
    return sendDocument(reply, 200, singleDocument(platformResource(platform, canManage, linksFor(request))));
  });

  app.delete<{ Params: Static<typeof PlatformParams> }>(platformPath, { schema: { params: PlatformParams } }, async (request, reply) => {
    const { version, os, arch } = request.params;
    service.destroyPlatform(request.principal, addressOf(request.params), version, os, arch);
    return sendNoContent(reply);
  });
}
