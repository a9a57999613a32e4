import { Type, type Static } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import { ApiError, badRequest } from '../../core/errors.js';
import { refuseDeclaredOversize } from '../../core/upload-spool.js';
import type { PlatformContext } from '../context.js';
import { registerPlatformConventions } from '../conventions.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { listDocument, sendDocument, sendNoContent, singleDocument } from '../jsonapi/documents.js';
import { readPage } from '../jsonapi/pagination.js';
import { queryList } from '../jsonapi/query.js';
import { Attr, listQuery, resourceBody } from '../jsonapi/schemas.js';
import { baseUrlOf } from '../registry/routes.js';
import { PROVIDER_FILES, PROVIDER_UPLOADS, PROVIDERS_V1 } from './protocol.js';
import { gpgKeyResource } from './resource.js';
import { MAX_BINARY_BYTES } from './service.js';

export const GPG_KEYS = '/api/registry/private/v2/gpg-keys';

const Segment = Type.String({ minLength: 1 });
const KeyParams = Type.Object({ namespace: Segment, keyId: Segment });
const Provider = Type.Object({ namespace: Segment, name: Segment });
const Download = Type.Object({ ...Provider.properties, version: Segment, os: Segment, arch: Segment });
const KeyListQuery = Type.Object({ ...listQuery().properties, 'filter[namespace]': Type.Optional(Type.String()) });
const CREATE_KEY = resourceBody(['gpg-keys'], { attributes: { namespace: Attr.string(), 'ascii-armor': Attr.string() } });
const UPDATE_KEY = resourceBody(['gpg-keys'], { attributes: { namespace: Attr.string() } });

/**
 * The provider registry outside `/api/v2`: GPG keys (JSON:API, under the registry's own prefix),
 * the `providers.v1` protocol, signed file links and upload links (these two carry their own
 * right, no token). Same tokens and JSON:API errors as `/api/v2`.
 */
export async function providerRegistryPlugin(app: FastifyInstance, context: PlatformContext): Promise<void> {
  await app.register(async (scope) => jsonRoutes(scope, context));
  await app.register(async (scope) => uploadRoutes(scope, context));
}

async function jsonRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const keys = context.services.gpgKeys;
  const protocol = context.services.providerProtocol;
  registerPlatformConventions(app, context, { ownNotFound: false });

  app.get<{ Querystring: Static<typeof KeyListQuery> }>(GPG_KEYS, { schema: { querystring: KeyListQuery } }, async (request, reply) => {
    const namespaces = queryList(request.query, 'filter[namespace]');
    if (namespaces.length === 0)
      throw badRequest('filter[namespace] is required', { title: 'bad request', parameter: 'filter[namespace]' });
    const page = readPage(request.query);
    const { items, total } = keys.list(request.principal, namespaces, page.offset, page.size);
    return sendDocument(reply, 200, listDocument(request, { items: items.map(gpgKeyResource), total, page }));
  });

  app.post(GPG_KEYS, { schema: { body: CREATE_KEY } }, async (request, reply) => {
    const attributes = new Attributes(readResource(request.body, ['gpg-keys']).attributes);
    const loaded = keys.create(request.principal, {
      namespace: attributes.string('namespace'),
      asciiArmor: attributes.string('ascii-armor'),
    });
    return sendDocument(reply, 201, singleDocument(gpgKeyResource(loaded)));
  });

  const keyPath = `${GPG_KEYS}/:namespace/:keyId`;
  app.get<{ Params: Static<typeof KeyParams> }>(keyPath, { schema: { params: KeyParams } }, async (request, reply) => {
    const { namespace, keyId } = request.params;
    return sendDocument(reply, 200, singleDocument(gpgKeyResource(keys.get(request.principal, 'private', namespace, keyId))));
  });

  app.patch<{ Params: Static<typeof KeyParams> }>(keyPath, { schema: { params: KeyParams, body: UPDATE_KEY } }, async (request, reply) => {
    const { namespace, keyId } = request.params;
    const target = new Attributes(readResource(request.body, ['gpg-keys']).attributes).string('namespace');
    return sendDocument(reply, 200, singleDocument(gpgKeyResource(keys.update(request.principal, 'private', namespace, keyId, target))));
  });

  app.delete<{ Params: Static<typeof KeyParams> }>(keyPath, { schema: { params: KeyParams } }, async (request, reply) => {
    const { namespace, keyId } = request.params;
    keys.destroy(request.principal, 'private', namespace, keyId);
    return sendNoContent(reply);
  });

  app.get<{ Params: Static<typeof Provider> }>(
    `${PROVIDERS_V1}:namespace/:name/versions`,
    { schema: { params: Provider } },
    async (request) => protocol.versions(request.principal, request.params.namespace, request.params.name),
  );

  app.get<{ Params: Static<typeof Download> }>(
    `${PROVIDERS_V1}:namespace/:name/:version/download/:os/:arch`,
    { schema: { params: Download } },
    async (request) => protocol.download(request.principal, baseUrlOf(request), request.params),
  );

  app.get<{ Params: { token: string; file: string } }>(
    `${PROVIDER_FILES}:token/:file`,
    { config: { public: true, secretParams: ['token'] } },
    async (request, reply) => {
      const content = protocol.file(request.params.token, request.params.file);
      if (!content) throw new ApiError(404, 'the download link is unknown or has expired');
      const type = request.params.file.endsWith('.zip') ? 'application/zip' : 'application/octet-stream';
      return reply.code(200).type(type).send(content);
    },
  );
}

async function uploadRoutes(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const service = context.services.registryProviders;
  registerPlatformConventions(app, context, { ownNotFound: false });
  // Uploads are streamed to the spool untouched, whatever their declared type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

  app.put<{ Params: { secret: string } }>(
    `${PROVIDER_UPLOADS}:secret`,
    { config: { public: true, secretParams: ['secret'] }, bodyLimit: MAX_BINARY_BYTES },
    async (request, reply) => {
      refuseDeclaredOversize(request.headers, MAX_BINARY_BYTES);
      await service.upload(request.params.secret, (request.body as Readable | undefined) ?? request.raw);
      return reply.code(200).send();
    },
  );
}
