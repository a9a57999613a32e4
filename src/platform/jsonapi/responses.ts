import { Type, type TProperties, type TSchema } from '@fastify/type-provider-typebox';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { memoised } from './schemas.js';

/**
 * Response schemas: what each `/api/v2` route answers, with its real status (`ok`, `created`,
 * `accepted`, `noContent`). Each domain declares its routes in a table next to its resources
 * (`<domain>/schemas.ts`, keyed `METHOD /path` as the route is registered under `/api/v2`);
 * `declareResponses` puts each entry on its route as `schema.response`, where the OpenAPI builder
 * (`src/control/openapi.ts`) reads it and adds the JSON:API error document for 4XX.
 * `test/control/openapi-responses.test.ts` checks the document against real answers.
 *
 * They document, they never shape the answer: the platform's serializer compiler
 * (`conventions.ts`) is plain `JSON.stringify`, and `sendDocument` sets its own serializer, so no
 * member is dropped for being undeclared. Objects stay open (JSON Schema's default): the test
 * closes `attributes` to find attributes a renderer writes and a schema forgets.
 */

/*
 * The declarations below run once per route at start-up; building the same types again for each
 * took part of the ~30 ms spent in TypeBox at spawn-to-ready. They are built once and shared:
 * TypeBox never mutates a type it is given, and the OpenAPI builder and tests copy before
 * changing anything.
 */

/** Nullable: the attribute is always present, sometimes null. */
const nullables = new WeakMap<TSchema, TSchema>();
const buildNullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const Nullable = <T extends TSchema>(schema: T) =>
  memoised(nullables, schema, () => buildNullable(schema)) as ReturnType<typeof buildNullable<T>>;

const STRING = Type.String();
const TIME = Type.String({ format: 'date-time' });
const DATE = Type.String({ format: 'date' });
const INTEGER = Type.Integer();
const NUMBER = Type.Number();
const BOOLEAN = Type.Boolean();
const STRINGS = Type.Array(STRING);
const OBJECT = Type.Object({});
const FLAGS = Type.Record(Type.String(), Type.Boolean());
const ANY = Type.Unknown();

/** Attribute types, to keep the declarations one line each. */
export const A = {
  string: () => STRING,
  time: () => TIME,
  date: () => DATE,
  integer: () => INTEGER,
  number: () => NUMBER,
  boolean: () => BOOLEAN,
  strings: () => STRINGS,
  object: () => OBJECT,
  /** A map of flags (`permissions`, `actions`). */
  flags: () => FLAGS,
  any: () => ANY,
  nullable: Nullable,
  optional: <T extends TSchema>(schema: T) => Type.Optional(schema),
  oneOf: (...values: string[]) => Type.Union(values.map((value) => Type.Literal(value))),
};

const Identifier = Type.Object({ id: Type.String(), type: Type.String() });

/** A relationship object: to-one (or null) or to-many, with links and meta when the service gives them. */
export const RelationshipObject = Type.Object({
  data: Type.Optional(Type.Union([Identifier, Type.Array(Identifier), Type.Null()])),
  links: Type.Optional(Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]))),
  meta: Type.Optional(Type.Object({})),
});

/** Any resource object (what `included` holds, and a resource without a schema of its own). */
export const AnyResource = Type.Object({
  id: Type.String(),
  type: Type.String(),
  attributes: Type.Optional(Type.Object({})),
  relationships: Type.Optional(Type.Record(Type.String(), RelationshipObject)),
  links: Type.Optional(Type.Object({})),
  meta: Type.Optional(Type.Object({})),
});

export interface ResourceOptions {
  /** Relationship names the resource may carry (each optional: some appear by edition or state). */
  relationships?: readonly string[];
  /** Whether `links` is always there (default), sometimes, or never. */
  links?: 'always' | 'optional' | 'never';
  /** A `meta` object's schema, when the resource has one. */
  meta?: TSchema;
  description?: string;
}

// The parts every resource schema shares (one resource schema per resource type).
const OptionalRelationship = Type.Optional(RelationshipObject);
const ResourceLinks = Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]));
const OptionalResourceLinks = Type.Optional(ResourceLinks);

/**
 * A resource object of `type` with these attributes: each required unless declared with
 * `Type.Optional` (present by edition, dialect or state), and typed as rendered.
 */
export function resourceSchema(type: string | readonly string[], attributes: TProperties, options: ResourceOptions = {}) {
  const types = typeof type === 'string' ? [type] : type;
  const relationships = Object.fromEntries((options.relationships ?? []).map((name) => [name, OptionalRelationship]));
  return Type.Object(
    {
      id: STRING,
      type: types.length === 1 ? Type.Literal(types[0] as string) : Type.Union(types.map((name) => Type.Literal(name))),
      attributes: Type.Object(attributes),
      ...(options.relationships ? { relationships: Type.Object(relationships) } : {}),
      ...(options.links === 'never' ? {} : { links: options.links === 'optional' ? OptionalResourceLinks : ResourceLinks }),
      ...(options.meta ? { meta: Type.Optional(options.meta) } : {}),
    },
    options.description ? { description: options.description } : {},
  );
}

const Included = Type.Optional(Type.Array(AnyResource, { description: 'the resources `include` asked for' }));

/** A document with one resource. */
const singles = new WeakMap<TSchema, TSchema>();
export const single = (resource: TSchema, description?: string) =>
  description ? buildSingle(resource, description) : memoised(singles, resource, () => buildSingle(resource));
const buildSingle = (resource: TSchema, description?: string) =>
  Type.Object({ data: resource, included: Included, meta: Type.Optional(Type.Object({})) }, description ? { description } : {});

const PageLinks = Type.Object({
  self: Type.String(),
  first: Type.String(),
  prev: Nullable(Type.String()),
  next: Nullable(Type.String()),
  last: Type.String(),
});

const Pagination = Type.Object({
  'current-page': Type.Integer(),
  'page-size': Type.Integer(),
  'prev-page': Nullable(Type.Integer()),
  'next-page': Nullable(Type.Integer()),
  'total-pages': Type.Integer(),
  'total-count': Type.Integer(),
});

/** A page of resources: `links` and `meta.pagination` (with the list's own counts beside it). */
const pages = new WeakMap<TSchema, TSchema>();
export const paged = (resource: TSchema, description?: string) =>
  description ? buildPaged(resource, description) : memoised(pages, resource, () => buildPaged(resource));
const buildPaged = (resource: TSchema, description?: string) =>
  Type.Object(
    {
      data: Type.Array(resource),
      included: Included,
      links: PageLinks,
      meta: Type.Object({ pagination: Pagination }),
    },
    description ? { description } : {},
  );

/** A list without pagination (relationship listings, small fixed sets). */
const lists = new WeakMap<TSchema, TSchema>();
export const listed = (resource: TSchema, description?: string) =>
  description ? buildListed(resource, description) : memoised(lists, resource, () => buildListed(resource));
const buildListed = (resource: TSchema, description?: string) =>
  Type.Object(
    {
      data: Type.Array(resource),
      included: Included,
      links: Type.Optional(Type.Object({})),
      meta: Type.Optional(Type.Object({})),
    },
    description ? { description } : {},
  );

/** An empty body. */
export const NoBody = Type.Null({ description: 'done, no body' });

/**
 * A body that is not JSON:API (an archive, a plan's JSON, a policy's text), under its own media
 * type, with a schema when it is JSON of a known shape: `{ description, content: { <media type>:
 * { schema } } }`, which Fastify and the document both read per status.
 */
export const bytes = (mediaType: string, description: string, schema?: TSchema) => ({
  description,
  content: { [mediaType]: { schema: schema ?? (mediaType.endsWith('json') ? Type.Unknown() : Type.String()) } },
});

/**
 * What a route declares as `schema.response`. The type is deliberately loose: the handler's
 * return type stays as it is (routes send through `sendDocument`, not by returning the document).
 */
export type Responses = Record<string, unknown>;

export const ok = (schema: TSchema | ReturnType<typeof bytes>): Responses => ({ 200: schema });
export const created = (schema: TSchema): Responses => ({ 201: schema });
/** Accepted: the work is queued (run actions, lock releases the real service answers 202 for). */
export const accepted = (schema: TSchema = NoBody): Responses => ({ 202: schema });
export const noContent: Responses = { 204: NoBody };
/** Only refusals: the route never succeeds here (an action the emulator always declines). */
export const refusedOnly: Responses = {};
/** Several statuses, when a route answers more than one success. */
export const responses = (...maps: Responses[]): Responses => Object.assign({}, ...maps) as Responses;

/**
 * The five routes of a collection of `resource`: list (paged) and create at `collection`, show,
 * update and delete at `item` (the table keys, as registered under `/api/v2`).
 */
export const crud = (collection: string, item: string, resource: TSchema): Record<string, Responses> => ({
  [`GET ${collection}`]: ok(paged(resource)),
  [`POST ${collection}`]: created(single(resource)),
  [`GET ${item}`]: ok(single(resource)),
  [`PATCH ${item}`]: ok(single(resource)),
  [`DELETE ${item}`]: noContent,
});

/**
 * A `vars` resource's attributes: a workspace's variable and a variable set's are the same
 * resource (its `configurable` is the workspace or the set).
 */
export const VARIABLE_ATTRIBUTES: TProperties = {
  key: A.string(),
  value: A.nullable(A.string()),
  sensitive: A.boolean(),
  category: A.string(),
  hcl: A.boolean(),
  description: A.nullable(A.string()),
  'created-at': A.time(),
  'version-id': A.string(),
};

/** A domain's routes and what each answers, keyed `METHOD /path` (the path under `/api/v2`, as registered). */
export type ResponseTable = Readonly<Record<string, Responses>>;

const API_PREFIX = '/api/v2';

/** The table key of a route as Fastify registers it. */
export const responseKey = (method: string, url: string) => `${method} ${url.startsWith(API_PREFIX) ? url.slice(API_PREFIX.length) : url}`;

/**
 * Puts each table entry on its route as `schema.response` (a copy: route schemas are shared
 * between routes). Call it on the scope before its routes are registered; a route without an
 * entry keeps the OpenAPI builder's generic answer (marked `x-undeclared-response`). Returns the
 * keys that matched a route, so a test can find entries whose route moved.
 */
export function declareResponses(scope: FastifyInstance, table: ResponseTable): Set<string> {
  const matched = new Set<string>();
  scope.addHook('onRoute', (route: RouteOptions) => {
    for (const method of [route.method].flat()) {
      const key = responseKey(method, route.url ?? '');
      const response = table[key];
      if (!response) continue;
      matched.add(key);
      route.schema = { ...route.schema, response };
    }
  });
  return matched;
}
