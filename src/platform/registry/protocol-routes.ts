import { Type, type Static } from '@sinclair/typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { editionAllows } from '../../core/edition.js';
import { ApiError } from '../../core/errors.js';
import { DEFAULT_ARCHIVE_LIMITS } from '../../core/tar-archive.js';
import { refuseDeclaredOversize } from '../../core/upload-spool.js';
import type { PlatformContext } from '../context.js';
import { registerPlatformConventions } from '../conventions.js';
import { NOT_FOUND, sendError } from '../jsonapi/errors.js';
import { DownloadLinks } from './links.js';
import { baseUrlOf } from './routes.js';

export const MODULES_V1 = '/api/registry/v1/modules/';
export const PUBLIC_MODULES_V1 = '/api/registry/public/v1/modules/';

const Segment = Type.String({ minLength: 1 });
const Namespace = Type.Object({ namespace: Segment });
const Name = Type.Object({ namespace: Segment, name: Segment });
const Provider = Type.Object({ ...Name.properties, provider: Segment });
const Version = Type.Object({ ...Provider.properties, version: Segment });
const ListQuery = Type.Object({
  q: Type.Optional(Type.String()),
  provider: Type.Optional(Type.String()),
  namespace: Type.Optional(Type.String()),
  verified: Type.Optional(Type.String()),
  // Query strings are checked as sent (no coercion), so the numbers are digit strings here.
  offset: Type.Optional(Type.String({ pattern: '^\\d{1,9}$', errorMessage: 'offset must be a non-negative integer' })),
  limit: Type.Optional(Type.String({ pattern: '^(100|[1-9]\\d?)$', errorMessage: 'limit must be an integer from 1 to 100' })),
});
type ListQuery = Static<typeof ListQuery>;

const DEFAULT_LIMIT = 15;

/**
 * Everything under `/api/registry` and the discovery document: the `modules.v1` protocol the
 * terraform CLI speaks, the upload and archive links (they carry their own right, no token), the
 * VCS webhook, and the public proxy. Same tokens and JSON:API error documents as `/api/v2`.
 */
export async function registryProtocolPlugin(app: FastifyInstance, runtime: PlatformContext): Promise<void> {
  const protocol = runtime.services.registryProtocol;
  const service = runtime.services.registry;
  const vcs = runtime.services.vcs;
  const links = new DownloadLinks(runtime.clock);

  registerPlatformConventions(app, runtime, { ownNotFound: false });
  // Uploads are streamed into the archive parser untouched, whatever their declared type.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
  const open = { config: { public: true } };

  app.get('/.well-known/terraform.json', open, async (_request, reply) => {
    return reply.code(200).type('application/json').send({
      'modules.v1': MODULES_V1,
      'providers.v1': '/api/registry/v1/providers/',
      'motd.v1': '/api/terraform/motd',
      'state.v2': '/api/v2/',
      'tfe.v2': '/api/v2/',
      'tfe.v2.1': '/api/v2/',
      'tfe.v2.2': '/api/v2/',
    });
  });

  app.get('/api/terraform/motd', async () => ({ msg: '', errors: [] }));

  const listQuery = (query: ListQuery) => ({
    offset: query.offset === undefined ? 0 : Number(query.offset),
    limit: query.limit === undefined ? DEFAULT_LIMIT : Number(query.limit),
    ...(query.q ? { q: query.q } : {}),
    ...(query.provider ? { provider: query.provider } : {}),
    ...(query.namespace ? { namespace: query.namespace } : {}),
  });

  app.get<{ Querystring: ListQuery }>(MODULES_V1, { schema: { querystring: ListQuery } }, async (request) =>
    protocol.list(request.principal, listQuery(request.query)),
  );
  app.get<{ Querystring: ListQuery }>(`${MODULES_V1}search`, { schema: { querystring: ListQuery } }, async (request) => {
    if (!request.query.q) throw new ApiError(400, 'q is required', { title: 'bad request', parameter: 'q' });
    return protocol.list(request.principal, listQuery(request.query));
  });
  app.get<{ Params: Static<typeof Namespace>; Querystring: ListQuery }>(
    `${MODULES_V1}:namespace`,
    { schema: { params: Namespace, querystring: ListQuery } },
    async (request) => protocol.list(request.principal, { ...listQuery(request.query), namespace: request.params.namespace }),
  );
  app.get<{ Params: Static<typeof Name>; Querystring: ListQuery }>(
    `${MODULES_V1}:namespace/:name`,
    { schema: { params: Name, querystring: ListQuery } },
    async (request) => {
      const { offset, limit } = listQuery(request.query);
      return protocol.latestForAll(request.principal, request.params.namespace, request.params.name, offset, limit);
    },
  );
  app.get<{ Params: Static<typeof Provider> }>(
    `${MODULES_V1}:namespace/:name/:provider/versions`,
    { schema: { params: Provider } },
    async (request) => {
      const { namespace, name, provider } = request.params;
      return protocol.versions(request.principal, namespace, name, provider);
    },
  );
  app.get<{ Params: Static<typeof Provider> }>(
    `${MODULES_V1}:namespace/:name/:provider`,
    { schema: { params: Provider } },
    async (request) => {
      const { namespace, name, provider } = request.params;
      return protocol.detail(request.principal, namespace, name, provider);
    },
  );
  app.get<{ Params: Static<typeof Version> }>(
    `${MODULES_V1}:namespace/:name/:provider/:version`,
    { schema: { params: Version } },
    async (request) => {
      const { namespace, name, provider, version } = request.params;
      return protocol.detail(request.principal, namespace, name, provider, version);
    },
  );
  app.get<{ Params: Static<typeof Version> }>(
    `${MODULES_V1}:namespace/:name/:provider/:version/download`,
    { schema: { params: Version } },
    async (request, reply) => {
      const { namespace, name, provider, version } = request.params;
      const found = protocol.downloadable(request.principal, namespace, name, provider, version);
      const file = `${found.module.name}-${found.module.provider}-${found.version.version}.tar.gz`;
      const url = `${baseUrlOf(request)}/api/registry/archives/${links.token(found.version.id)}/${encodeURIComponent(file)}`;
      return reply.code(204).header('x-terraform-get', url).send();
    },
  );
  app.get<{ Params: Static<typeof Provider> }>(
    `${MODULES_V1}:namespace/:name/:provider/download`,
    { schema: { params: Provider } },
    async (request, reply) => {
      const { namespace, name, provider } = request.params;
      const version = protocol.latestVersion(request.principal, namespace, name, provider);
      return reply.redirect(`${MODULES_V1}${namespace}/${name}/${provider}/${encodeURIComponent(version)}/download`, 302);
    },
  );

  const secret = (...secretParams: string[]) => ({ config: { public: true, secretParams } });
  app.get<{ Params: { token: string; file: string } }>('/api/registry/archives/:token/:file', secret('token'), async (request, reply) => {
    const versionId = links.verify(request.params.token);
    const archive = versionId && protocol.archive(versionId);
    if (!archive) throw new ApiError(404, 'the download link is unknown or has expired');
    return reply.code(200).type('application/gzip').send(archive);
  });

  app.put<{ Params: { id: string } }>('/api/registry/uploads/v1/object/:id', secret('id'), async (request, reply) => {
    refuseDeclaredOversize(request.headers, DEFAULT_ARCHIVE_LIMITS.maxArchiveBytes);
    await service.upload(request.params.id, (request.body as Readable | undefined) ?? request.raw);
    return reply.code(200).send();
  });

  app.post<{ Params: { id: string; secret: string } }>('/api/registry/webhooks/:id/:secret', secret('secret'), async (request) => {
    // The notification's payload does not matter: every push means "look at the tags again".
    (request.body as Readable | undefined)?.resume();
    return vcs.webhook(request.params.id, request.params.secret);
  });

  const upstream = runtime.config.publicRegistryUrl;
  const proxy = async (request: FastifyRequest, reply: FastifyReply, path: string) => {
    if (!editionAllows.publicRegistry(runtime.config.edition)) throw NOT_FOUND;
    if (!upstream) throw new ApiError(404, 'no public registry is configured (UNDERSTUDY_PUBLIC_REGISTRY_URL)');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (runtime.config.publicRegistryToken) headers['authorization'] = `Bearer ${runtime.config.publicRegistryToken}`;
    let response: Response;
    try {
      response = await fetch(`${upstream.replace(/\/?$/, '/')}${path}`, { headers, signal: AbortSignal.timeout(10_000) });
    } catch (error) {
      throw new ApiError(502, `the public registry could not be reached: ${(error as Error).message}`);
    }
    if (response.status === 404) return sendError(reply, new ApiError(404, 'module not found in the public registry'));
    if (!response.ok) throw new ApiError(502, `the public registry answered ${response.status}`);
    return reply
      .code(200)
      .type('application/json')
      .send(await response.text());
  };
  const segments = (...parts: string[]) => parts.map(encodeURIComponent).join('/');
  app.get<{ Params: Static<typeof Provider> }>(
    `${PUBLIC_MODULES_V1}:namespace/:name/:provider/versions`,
    { schema: { params: Provider } },
    async (request, reply) => {
      const { namespace, name, provider } = request.params;
      return proxy(request, reply, `${segments(namespace, name, provider)}/versions`);
    },
  );
  app.get<{ Params: Static<typeof Provider> }>(
    `${PUBLIC_MODULES_V1}:namespace/:name/:provider`,
    { schema: { params: Provider } },
    async (request, reply) => {
      const { namespace, name, provider } = request.params;
      return proxy(request, reply, segments(namespace, name, provider));
    },
  );
  app.get<{ Params: Static<typeof Version> }>(
    `${PUBLIC_MODULES_V1}:namespace/:name/:provider/:version`,
    { schema: { params: Version } },
    async (request, reply) => {
      const { namespace, name, provider, version } = request.params;
      return proxy(request, reply, segments(namespace, name, provider, version));
    },
  );
}
