import swagger from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { spell, type Dialect } from '../core/dialect.js';
import { VERSION } from '../core/version.js';
import type { Runtime } from '../runtime.js';
import { README_TAGS, responsesOf, secretsTagOf, summaryOf, tagsOf } from './openapi-operations.js';
import { buildSecretsContext, ENGINES } from '../secrets/plugin.js';
import type { EngineFactory } from '../secrets/context.js';
import type { Backend, FieldSpec, FieldType, Operation, PathSpec } from '../secrets/framework/types.js';
import { systemBackend } from '../secrets/sys/backend.js';
import { identityBackend } from '../secrets/identity/backend.js';
import { tokenBackend } from '../secrets/tokens/backend.js';

/** A route as Fastify registered it (collected with an onRoute hook). */
export interface RegisteredRoute {
  method: string;
  url: string;
}

type OpenApiObject = { paths?: Record<string, Record<string, unknown>>; tags?: { name: string; description?: string }[] };
type Json = Record<string, unknown>;

/** The one catch-all route of the secrets tree; the path tables describe what is behind it. */
const SECRETS_CATCH_ALL = '/v1/*';

// Keys our schemas carry for validation only (see platform/jsonapi/validation.ts).
const VALIDATION_ONLY = new Set(['errorMessage', 'optionalBody']);
const forDocument = (schema: unknown): unknown =>
  JSON.parse(JSON.stringify(schema, (key, value: unknown) => (VALIDATION_ONLY.has(key) ? undefined : value))) as unknown;

/**
 * A declared response schema as the server's dialect writes the answer: property names and
 * literal values (an attribute's key, a settings document's type) in its spelling.
 */
function spelledFor(schema: unknown, dialect: Dialect): unknown {
  if (dialect === 'spec' || schema === undefined) return schema;
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    return Object.fromEntries(
      Object.entries(node as Record<string, unknown>).map(([key, value]) => {
        if (key === 'properties' && typeof value === 'object' && value !== null)
          return [
            key,
            Object.fromEntries(
              Object.entries(value as Record<string, unknown>).map(([name, child]) => [spell(name, dialect), walk(child)]),
            ),
          ];
        if (key === 'required' && Array.isArray(value))
          return [key, (value as unknown[]).map((name) => (typeof name === 'string' ? spell(name, dialect) : name))];
        if (key === 'const' && typeof value === 'string') return [key, spell(value, dialect)];
        return [key, walk(value)];
      }),
    );
  };
  return walk(schema);
}

/**
 * Registers @fastify/swagger on the root instance (before any tree, so it sees every route) and
 * returns the list of registered routes. The `/api/v2` routes are described from their TypeBox
 * schemas; `/v1` is one catch-all route, replaced in the document by the secrets path tables.
 */
export async function registerOpenApi(
  fastify: FastifyInstance,
  runtime: Runtime,
  engines: ReadonlyMap<string, EngineFactory> = ENGINES,
): Promise<RegisteredRoute[]> {
  const routes: RegisteredRoute[] = [];
  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) routes.push({ method, url: route.url });
  });
  await fastify.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'understudy',
        version: VERSION,
        description:
          'A local stand-in for the platform API (/api/v2, JSON:API) and the secrets API (/v1). Generated from the route declarations.',
      },
      tags: [...README_TAGS],
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    // Every operation gets tags, a summary and responses here (see openapi-operations.ts), so a
    // route added later is described without declaring them; what a route declares itself wins.
    transform: ({ schema, url, route }) => {
      const method = [route.method].flat()[0] ?? 'GET';
      const own = forDocument(schema ?? {}) as Json;
      const described: Json = {
        ...own,
        tags: own['tags'] ?? tagsOf(url),
        summary: own['summary'] ?? summaryOf(method, url),
        response: responsesOf(method, url, spelledFor(own['response'], runtime.config.dialect) as Json | undefined),
      };
      if (url === SECRETS_CATCH_ALL) described['hide'] = true;
      const security = securityOf(url);
      if (security) described['security'] = security;
      if (url.startsWith('/api/v2')) {
        described['consumes'] = ['application/vnd.api+json'];
        described['produces'] = ['application/vnd.api+json'];
      }
      return { schema: described, url };
    },
    transformObject: (documents) => {
      const document = ('openapiObject' in documents ? documents.openapiObject : documents.swaggerObject) as OpenApiObject;
      document.paths = { ...document.paths, ...secretsPaths(runtime, engines) };
      return document;
    },
  });
  return routes;
}

const FIELD_SCHEMAS: Record<FieldType, Json> = {
  string: { type: 'string' },
  bool: { type: 'boolean' },
  int: { type: 'integer' },
  duration: { anyOf: [{ type: 'string' }, { type: 'integer' }], description: 'seconds, or a duration such as "1h"' },
  commaStringSlice: { anyOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }] },
  stringSlice: { type: 'array', items: { type: 'string' } },
  map: { type: 'object' },
  kvPairs: { type: 'object', additionalProperties: { type: 'string' } },
  any: {},
};

function fieldsSchema(fields: Record<string, FieldSpec> | undefined): Json {
  const properties = Object.fromEntries(
    Object.entries(fields ?? {}).map(([name, field]) => [
      name,
      {
        ...FIELD_SCHEMAS[field.documentedAs ?? field.type],
        description: field.description,
        ...(field.default !== undefined ? { default: field.default } : {}),
        ...(field.example !== undefined ? { examples: [field.example] } : {}),
      },
    ]),
  );
  const required = Object.entries(fields ?? {})
    .filter(([, field]) => field.required)
    .map(([name]) => name);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/** `roles/:name` under `pki/` → `/v1/pki/roles/{name}`, with its path parameters. */
function openApiPath(prefix: string, pattern: string): { path: string; parameters: Json[] } {
  const parameters: Json[] = [];
  const segments = `${prefix}${pattern}`.split('/').map((segment) => {
    const capture = /^:([A-Za-z_][A-Za-z0-9_]*)(\*)?$/.exec(segment);
    if (!capture) return segment;
    const name = capture[1] as string;
    const description = capture[2] ? 'the rest of the path; may contain "/"' : undefined;
    parameters.push({ name, in: 'path', required: true, schema: { type: 'string' }, ...(description ? { description } : {}) });
    return `{${name}}`;
  });
  return { path: `/v1/${segments.join('/')}`.replace(/\/+$/, '').replace(/\/{2,}/g, '/'), parameters };
}

/**
 * The page's Authorize dialog fills these in and "Try it out" sends them. Declared as schemes rather
 * than header parameters, so one token entered once applies to every operation of its API.
 */
const SECURITY_SCHEMES = {
  platformToken: { type: 'http', scheme: 'bearer', description: "An API token for /api/v2 and the registry (the banner's TFE_TOKEN)." },
  vaultToken: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Vault-Token',
    description: "A token for /v1 (the banner's VAULT_TOKEN); the API also reads X-Store-Token or Authorization: Bearer.",
  },
  controlToken: { type: 'http', scheme: 'bearer', description: 'UNDERSTUDY_CONTROL_TOKEN, when one is set.' },
} as const;

function securityOf(url: string): Json[] | undefined {
  if (url.startsWith('/api/')) return [{ platformToken: [] }];
  if (url.startsWith('/_emulator') && !url.startsWith('/_emulator/health')) return [{ controlToken: [] }];
  return undefined;
}

/** A body made of the fields' examples, when the table gives any: a body the server accepts as it is. */
function exampleBody(fields: Record<string, FieldSpec> | undefined): Json | undefined {
  const examples = Object.entries(fields ?? {}).filter(([, field]) => field.example !== undefined);
  return examples.length > 0 ? Object.fromEntries(examples.map(([name, field]) => [name, field.example])) : undefined;
}

function pathItem(spec: PathSpec, parameters: Json[], engine: string, tag: string): Record<string, Json> {
  const operations = spec.operations as Partial<Record<Operation, unknown>>;
  const base = (summary: string, extra: Json = {}): Json => ({
    summary,
    description: spec.summary,
    tags: [tag],
    parameters: [...parameters, ...((extra['parameters'] as Json[] | undefined) ?? [])],
    security: [{ vaultToken: [] }],
    responses: { '200': { description: 'the result, in the `data` envelope' }, '204': { description: 'done, no body' } },
    'x-engine': engine,
    ...(spec.sudo ? { 'x-requires-sudo': true } : {}),
    ...Object.fromEntries(Object.entries(extra).filter(([key]) => key !== 'parameters')),
  });
  const item: Record<string, Json> = {};
  const example = exampleBody(spec.fields);
  const body = {
    requestBody: { content: { 'application/json': { schema: fieldsSchema(spec.fields), ...(example ? { example } : {}) } } },
  };
  if (operations.read || operations.list) {
    const listing = operations.list
      ? [
          {
            name: 'list',
            in: 'query',
            required: false,
            schema: { type: 'boolean' },
            description: 'list keys (the LIST method does the same)',
          },
        ]
      : [];
    item['get'] = base(operations.read ? 'read' : 'list', { parameters: listing });
  }
  if (operations.create || operations.update) {
    item['post'] = base(operations.create ? 'create or update' : 'update', body);
    item['put'] = base(operations.create ? 'create or update' : 'update', body);
  }
  if (operations.patch)
    item['patch'] = base('patch (JSON merge patch)', {
      requestBody: { content: { 'application/merge-patch+json': { schema: fieldsSchema(spec.fields) } } },
    });
  if (operations.delete) item['delete'] = base('delete');
  return item;
}

function describeBackend(paths: Record<string, Record<string, Json>>, prefix: string, backend: Backend): void {
  for (const spec of backend.paths) {
    const { path, parameters } = openApiPath(prefix, spec.pattern);
    paths[path] = { ...paths[path], ...pathItem(spec, parameters, backend.type, secretsTagOf(path, backend.type)) };
  }
}

/** `/v1` from the path tables: `sys/` and `auth/token/`, and each engine at each of its mounts (or its type's name). */
function secretsPaths(runtime: Runtime, engines: ReadonlyMap<string, EngineFactory>): Record<string, Record<string, Json>> {
  const context = buildSecretsContext(runtime, engines);
  const paths: Record<string, Record<string, Json>> = {};
  describeBackend(paths, 'sys/', systemBackend(context));
  describeBackend(paths, 'auth/token/', tokenBackend(context));
  describeBackend(paths, 'identity/', identityBackend(context));
  const mounts = context.mounts.all();
  for (const [type, factory] of engines) {
    const backend = factory(context);
    const at = mounts.filter((mount) => mount.type === type).map((mount) => mount.path);
    for (const prefix of at.length > 0 ? at : [`${type}/`]) describeBackend(paths, prefix, backend);
  }
  const methods = context.authMounts.all();
  for (const [type, factory] of context.authMethods) {
    const at = methods.filter((mount) => mount.type === type).map((mount) => mount.path);
    for (const prefix of at.length > 0 ? at : [`${type}/`]) describeBackend(paths, `auth/${prefix}`, factory(context));
  }
  return paths;
}
