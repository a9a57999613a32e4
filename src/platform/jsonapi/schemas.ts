import { Type, type TProperties, type TSchema } from '@fastify/type-provider-typebox';

/**
 * Building blocks for route schemas. One declaration gives validation (see validation.ts), the
 * handler's types and the OpenAPI document. They validate the JSON:API envelope as the spec
 * requires and no more: real clients send `"type": ""` on some actions, `null` for absent
 * attributes and relationships, and attributes the emulator does not know, all of which pass.
 * Domain rules (name patterns, lengths, allowed values) stay in the readers and services, which
 * know the exact texts.
 */

/** A query parameter: once (`a=1`) or repeated (`a=1&a=2`). */
export const QueryValue = Type.Union([Type.String(), Type.Array(Type.String())]);

/*
 * Start-up builds every route's schema (about 460 routes); building the same parts again for each
 * took about 30 ms of the spawn-to-ready CPU, plus the garbage it left. Parts that depend only on
 * their arguments are built once per distinct argument and shared, as `params()` is: TypeBox never
 * mutates a type it was given, the OpenAPI builder and the tests copy before they change anything,
 * and the validator compiles one checker per schema object, so sharing also compiles less.
 */
/** What `build` makes for `key`, made once and kept in `cache` (a Map, or a WeakMap for object keys). */
export function memoised<K, T>(cache: { get(key: K): T | undefined; set(key: K, value: T): unknown }, key: K, build: () => T): T {
  const cached = cache.get(key);
  if (cached !== undefined) return cached;
  const built = build();
  cache.set(key, built);
  return built;
}

const pageParameter = (name: string, description: string) =>
  Type.Optional(
    Type.Union([Type.String({ pattern: '^(\\d*[1-9]\\d*)?$' }), Type.Array(Type.String())], {
      errorMessage: `${name} must be a positive integer`,
      description,
    }),
  );
const PageNumber = pageParameter('page[number]', 'page number, from 1');
const PageSize = pageParameter('page[size]', 'page size, 1 to 100 (default 20)');

/** Path parameters, all strings; the same object for the same names so each compiles once. */
const paramsCache = new Map<string, TSchema>();
export function params<const K extends string>(...names: K[]) {
  const key = names.join(',');
  const cached = paramsCache.get(key);
  if (cached) return cached as ReturnType<typeof buildParams<K>>;
  const built = buildParams(names);
  paramsCache.set(key, built);
  return built;
}
function buildParams<K extends string>(names: K[]) {
  return Type.Object(Object.fromEntries(names.map((name) => [name, Type.String()])) as { [P in K]: ReturnType<typeof Type.String> });
}

/** What the `include` parameter's document says: the values an endpoint offers. */
const includeDescription = (includes: readonly string[]) =>
  includes.length > 0 ? `comma-separated, any of: ${includes.join(', ')}` : 'no relationship can be included here';

/** `include`, documented with the values an endpoint offers (the endpoint's IncludeRegistry answers the 400 for others). */
const includeParameters = new Map<string, ReturnType<typeof buildIncludeParameter>>();
const includeParameter = (includes: readonly string[]) => {
  const description = includeDescription(includes);
  return memoised(includeParameters, description, () => buildIncludeParameter(description));
};
const buildIncludeParameter = (description: string) =>
  Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description }));

/** The query of a single-resource read. */
const showQueries = new Map<string, ReturnType<typeof buildShowQuery>>();
export function showQuery(includes: readonly string[] = []) {
  return memoised(showQueries, includeDescription(includes), () => buildShowQuery(includes));
}
const buildShowQuery = (includes: readonly string[]) => Type.Object({ include: includeParameter(includes) });

/** The query of a list: pagination, `include`, and the endpoint's own filters. */
const listQueries = new Map<string, TSchema>();
export function listQuery<const K extends string>(options: { includes?: readonly string[]; filters?: readonly K[] } = {}) {
  // The key holds all the query depends on: the include document and the filters, in order.
  const key = JSON.stringify([includeDescription(options.includes ?? []), options.filters ?? []]);
  return memoised(listQueries, key, () => buildListQuery(options)) as ReturnType<typeof buildListQuery<K>>;
}
function buildListQuery<const K extends string>(options: { includes?: readonly string[]; filters?: readonly K[] }) {
  const filters = Object.fromEntries((options.filters ?? []).map((name) => [name, Type.Optional(QueryValue)])) as {
    [P in K]: ReturnType<typeof Type.Optional<typeof QueryValue>>;
  };
  return Type.Object({
    'page[number]': PageNumber,
    'page[size]': PageSize,
    include: includeParameter(options.includes ?? []),
    ...filters,
  });
}

const ENVELOPE = 'the body must be a JSON:API document with a data object';
const nullable = <T extends TSchema>(schema: T, errorMessage: string) => Type.Optional(Type.Union([schema, Type.Null()], { errorMessage }));

const ResourceId = nullable(Type.String(), 'data.id must be a string');

/** A JSON:API relationship object, to-one or to-many; the readers check what each route needs. */
const relationshipObjects = new Map<string, ReturnType<typeof buildRelationshipObject>>();
const relationshipObject = (name: string) => memoised(relationshipObjects, name, () => buildRelationshipObject(name));
const buildRelationshipObject = (name: string) =>
  Type.Optional(
    Type.Union([Type.Object({ data: Type.Optional(Type.Unknown()) }), Type.Null()], {
      errorMessage: `${name} must be a relationship object`,
    }),
  );

/** `data.relationships`, listing the names an endpoint reads: one schema per list of names, in order. */
const relationshipsMembers = new Map<string, ReturnType<typeof buildRelationshipsMember>>();
const relationshipsMember = (names: readonly string[]) =>
  memoised(relationshipsMembers, JSON.stringify(names), () => buildRelationshipsMember(names));
const buildRelationshipsMember = (names: readonly string[]) =>
  nullable(Type.Object(Object.fromEntries(names.map((name) => [name, relationshipObject(name)]))), 'data.relationships must be an object');

/**
 * `{"data": {"type": …, "attributes": {…}, "relationships": {…}}}` of one of `types` (or `""` when
 * `allowEmptyType`). `attributes` and `relationships` list what the endpoint reads, for the
 * document; anything else passes.
 */
export function resourceBody<A extends TProperties = TProperties>(
  types: readonly string[],
  options: { attributes?: A; relationships?: readonly string[]; allowEmptyType?: boolean; description?: string } = {},
) {
  return envelope(types, options);
}

/** Like resourceBody, for endpoints where no body at all is fine too (lock, token creation). */
export function optionalResourceBody<A extends TProperties = TProperties>(
  types: readonly string[],
  options: { attributes?: A; allowEmptyType?: boolean } = {},
) {
  return Type.Union([envelope(types, options), Type.Null()], { optionalBody: true });
}

function envelope<A extends TProperties>(
  types: readonly string[],
  options: { attributes?: A; relationships?: readonly string[]; allowEmptyType?: boolean; description?: string },
) {
  const accepted = [...types, ...(options.allowEmptyType ? [''] : [])];
  return Type.Object(
    {
      data: Type.Object(
        {
          type: Type.Union(
            accepted.map((type) => Type.Literal(type)),
            { errorMessage: `data.type must be ${types.map((t) => `"${t}"`).join(' or ')}` },
          ),
          id: ResourceId,
          attributes: nullable(Type.Object((options.attributes ?? {}) as A), 'data.attributes must be an object'),
          relationships: relationshipsMember(options.relationships ?? []),
        },
        { errorMessage: ENVELOPE },
      ),
    },
    { errorMessage: ENVELOPE, ...(options.description ? { description: options.description } : {}) },
  );
}

/** `{"data": [{"type": …, "id": …}, …]}` of relationship endpoints (tags, consumers, team members). */
export function identifierListBody(type: string) {
  const entry = `each entry must have type "${type}"`;
  return Type.Object(
    {
      data: Type.Array(
        Type.Object(
          {
            type: Type.Literal(type, { errorMessage: entry }),
            id: Type.Optional(Type.Unknown()),
            attributes: Type.Optional(Type.Unknown()),
          },
          { errorMessage: entry },
        ),
        { errorMessage: 'the body must be a document with a data array' },
      ),
    },
    { errorMessage: 'the body must be a document with a data array' },
  );
}

/** Attribute declarations for the document: each may also be null (treated as absent). */
const attributes = new Map<string, TSchema>();
/** One attribute declaration per kind and description, shared by every route declaring it. */
const attribute = <T extends TSchema>(kind: string, description: string | undefined, build: () => T): T =>
  memoised(attributes, `${kind}\n${description ?? ''}`, build) as T;
const orNull = <T extends TSchema>(schema: T, description: string | undefined) =>
  Type.Optional(Type.Union([schema, Type.Null()], description ? { description } : {}));

export const Attr = {
  string: (description?: string) => attribute('string', description, () => orNull(Type.String(), description)),
  boolean: (description?: string) => attribute('boolean', description, () => orNull(Type.Boolean(), description)),
  integer: (description?: string) => attribute('integer', description, () => orNull(Type.Integer(), description)),
  strings: (description?: string) => attribute('strings', description, () => orNull(Type.Array(Type.String()), description)),
  object: (description?: string) => attribute('object', description, () => orNull(Type.Object({}), description)),
};
