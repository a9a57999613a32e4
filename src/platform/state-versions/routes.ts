import type { FastifyRequest } from 'fastify';
import { badRequest, unprocessable } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource, relationshipId } from '../jsonapi/body.js';
import { listDocument, requestUrl, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { readPage } from '../jsonapi/pagination.js';
import { queryList } from '../jsonapi/query.js';
import { Attr, listQuery, params, resourceBody, showQuery } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { Located } from '../workspaces/service.js';
import type { StateVersionMeta } from './repo.js';
import { stateVersionIncludes, stateVersionView, type UploadSecrets } from './view.js';
import { stateVersionOutputResource } from './resource.js';
import { workspaceResourceObject } from './resources.js';

const CREATE_BODY = resourceBody(['state-versions'], {
  attributes: {
    serial: Attr.integer('the state serial; never lower than the current one'),
    md5: Attr.string('MD5 of the raw state, hexadecimal'),
    lineage: Attr.string(),
    state: Attr.string('the raw state, base64; omit it to upload through hosted-state-upload-url'),
    'json-state': Attr.string('the JSON state, base64'),
    'json-state-outputs': Attr.string('the outputs in JSON, base64 (accepted, outputs are read from the state)'),
    force: Attr.boolean('replace a state of another lineage or a higher serial'),
  },
  relationships: ['run'],
});
/** A state upload (base64, sensitive outputs inside) and output values: the request journal keeps neither body. */
const SECRET_BODIES = { config: { secretBodies: true } };

const ROLLBACK_BODY = resourceBody(['state-versions'], { relationships: ['rollback-state-version'] });

type ById = { Params: { id: string } };

/** What a state version document can include. */
const STATE_VERSION_INCLUDES = stateVersionIncludes.names;

function base64Attribute(attributes: Attributes, name: string): Buffer | undefined {
  const text = attributes.string(name) ?? undefined;
  if (text === undefined) return undefined;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text.replace(/\s/g, ''))) throw unprocessable(`${name} must be base64`, `/data/attributes/${name}`);
  return Buffer.from(text, 'base64');
}

/** State versions and their outputs; the raw state travels through the object routes (object-routes.ts). */
export async function stateVersionRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.stateVersions;
  const byId = (request: FastifyRequest<ById>) => service.workspaces.locate(request.principal, request.params.id);

  /**
   * Versions of one workspace as a document: their outputs in one query, `include=outputs` from
   * the same rows, and upload links only in the create response (the secrets exist only then).
   */
  const render = (
    request: FastifyRequest,
    versions: readonly StateVersionMeta[],
    located: Located,
    secrets: UploadSecrets | null = null,
  ) => {
    const wanted = stateVersionIncludes.read(request.query as Record<string, unknown>);
    const origin = requestUrl(request).origin;
    return stateVersionView(context.store.db, context.services.stateLinks, origin, located.organization, versions, wanted, secrets);
  };
  const one = (request: FastifyRequest, version: StateVersionMeta, located: Located, secrets: UploadSecrets | null = null) => {
    const { items, included } = render(request, [version], located, secrets);
    return singleDocument(items[0] as ResourceObject, included);
  };

  app.post<ById>(
    '/workspaces/:id/state-versions',
    { ...SECRET_BODIES, schema: { params: params('id'), body: CREATE_BODY } },
    async (request, reply) => {
      // A bad include is refused before anything changes.
      stateVersionIncludes.read(request.query as Record<string, unknown>);
      const located = byId(request);
      service.workspaces.require(located, 'can-create-state-versions');
      const input = readResource(request.body, ['state-versions']);
      const attributes = new Attributes(input.attributes);
      const serial = attributes.integer('serial', { minimum: 0 });
      if (serial === undefined) throw unprocessable('serial is required', '/data/attributes/serial');
      const md5 = attributes.string('md5', { required: true }) as string;
      const lineage = attributes.string('lineage') ?? undefined;
      const state = base64Attribute(attributes, 'state');
      const jsonState = base64Attribute(attributes, 'json-state');
      base64Attribute(attributes, 'json-state-outputs');
      const force = attributes.boolean('force') ?? false;
      const created = service.create(located, request.principal, {
        serial,
        md5,
        force,
        ...(lineage !== undefined ? { lineage } : {}),
        ...(state ? { state } : {}),
        ...(jsonState ? { jsonState } : {}),
      });
      return sendDocument(reply, 201, one(request, created.version, located, created.secrets));
    },
  );

  app.patch<ById>('/workspaces/:id/state-versions', { schema: { params: params('id'), body: ROLLBACK_BODY } }, async (request, reply) => {
    // A bad include is refused before anything changes.
    stateVersionIncludes.read(request.query as Record<string, unknown>);
    const located = byId(request);
    service.workspaces.require(located, 'can-create-state-versions');
    const input = readResource(request.body, ['state-versions']);
    const target = relationshipId(input.relationships, 'rollback-state-version', 'state-versions');
    if (!target) throw unprocessable('relationships.rollback-state-version is required', '/data/relationships/rollback-state-version');
    const version = service.rollback(located, request.principal, target);
    return sendDocument(reply, 200, one(request, version, located));
  });

  const listSchema = listQuery({ includes: STATE_VERSION_INCLUDES, filters: ['filter[workspace][name]', 'filter[organization][name]'] });
  app.get('/state-versions', { schema: { querystring: listSchema } }, async (request, reply) => {
    const page = readPage(request.query);
    const [workspace] = queryList(request.query, 'filter[workspace][name]');
    const [organization] = queryList(request.query, 'filter[organization][name]');
    if (!workspace || !organization) {
      const parameter = workspace ? 'filter[organization][name]' : 'filter[workspace][name]';
      throw badRequest(`${parameter} is required`, { title: 'bad request', parameter });
    }
    const located = service.workspaces.locateByName(request.principal, organization, workspace);
    const { rows, total } = service.list(located, page.offset, page.size);
    const { items, included } = render(request, rows, located);
    return sendDocument(reply, 200, listDocument(request, { items, total, page }, { included }));
  });

  const show = { params: params('id'), querystring: showQuery(STATE_VERSION_INCLUDES) };
  app.get<ById>('/state-versions/:id', { schema: show }, async (request, reply) => {
    const { version, located } = service.locate(request.principal, request.params.id);
    return sendDocument(reply, 200, one(request, version, located));
  });

  app.get<ById>('/workspaces/:id/current-state-version', { schema: show }, async (request, reply) => {
    const located = byId(request);
    return sendDocument(reply, 200, one(request, service.current(located), located));
  });

  const outputList = listQuery();
  app.get<ById>(
    '/state-versions/:id/outputs',
    { ...SECRET_BODIES, schema: { params: params('id'), querystring: outputList } },
    async (request, reply) => {
      const page = readPage(request.query as Record<string, unknown>);
      const { version } = service.locate(request.principal, request.params.id);
      const all = service.outputs(version.id);
      // The version's own output list carries sensitive values (the Go client reads them there);
      // the workspace's current outputs below keep them hidden.
      const items = all.slice(page.offset, page.offset + page.size).map((output) => stateVersionOutputResource(output, true));
      return sendDocument(reply, 200, listDocument(request, { items, total: all.length, page }));
    },
  );

  app.get<ById>(
    '/workspaces/:id/current-state-version-outputs',
    { ...SECRET_BODIES, schema: { params: params('id'), querystring: outputList } },
    async (request, reply) => {
      const page = readPage(request.query as Record<string, unknown>);
      const version = service.current(byId(request));
      const all = service.outputs(version.id);
      const items = all.slice(page.offset, page.offset + page.size).map((output) => stateVersionOutputResource(output, false));
      // The CLI falls back to downloading the whole state when this says the outputs are incomplete.
      return sendDocument(
        reply,
        200,
        listDocument(request, { items, total: all.length, page }, { meta: { 'has-incomplete-state': false } }),
      );
    },
  );

  // The managed resource instances of the current state, as go-tfe's WorkspaceResources.List reads them.
  app.get<ById>('/workspaces/:id/resources', { schema: { params: params('id'), querystring: listQuery() } }, async (request, reply) => {
    const page = readPage(request.query as Record<string, unknown>);
    const { version, resources } = service.resources(byId(request));
    const items = version
      ? resources.slice(page.offset, page.offset + page.size).map((resource) => workspaceResourceObject(resource, version))
      : [];
    return sendDocument(reply, 200, listDocument(request, { items, total: resources.length, page }));
  });

  app.get<ById>('/state-version-outputs/:id', { ...SECRET_BODIES, schema: { params: params('id') } }, async (request, reply) => {
    const output = service.output(request.principal, request.params.id);
    if (!output) throw NOT_FOUND;
    return sendDocument(reply, 200, singleDocument(stateVersionOutputResource(output, true)));
  });
}
