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

const pageParameter = (name: string, description: string) =>
  Type.Optional(
    Type.Union([Type.String({ pattern: '^(\\d*[1-9]\\d*)?$' }), Type.Array(Type.String())], {
      errorMessage: `${name} must be a positive integer`,
      description,
    }),
  );

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

/** `include`, documented with the values an endpoint offers (the endpoint's IncludeRegistry answers the 400 for others). */
const includeParameter = (includes: readonly string[]) =>
  Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: includes.length > 0 ? `comma-separated, any of: ${includes.join(', ')}` : 'no relationship can be included here',
    }),
  );

/** The query of a single-resource read. */
export function showQuery(includes: readonly string[] = []) {
  return Type.Object({ include: includeParameter(includes) });
}

/** The query of a list: pagination, `include`, and the endpoint's own filters. */
export function listQuery<const K extends string>(options: { includes?: readonly string[]; filters?: readonly K[] } = {}) {
  const filters = Object.fromEntries((options.filters ?? []).map((name) => [name, Type.Optional(QueryValue)])) as {
    [P in K]: ReturnType<typeof Type.Optional<typeof QueryValue>>;
  };
  return Type.Object({
    'page[number]': pageParameter('page[number]', 'page number, from 1'),
    'page[size]': pageParameter('page[size]', 'page size, 1 to 100 (default 20)'),
    include: includeParameter(options.includes ?? []),
    ...filters,
  });
}

const ENVELOPE = 'the body must be a JSON:API document with a data object';
const nullable = <T extends TSchema>(schema: T, errorMessage: string) => Type.Optional(Type.Union([schema, Type.Null()], { errorMessage }));

/** A JSON:API relationship object, to-one or to-many; the readers check what each route needs. */
const relationshipObject = (name: string) =>
  Type.Optional(
    Type.Union([Type.Object({ data: Type.Optional(Type.Unknown()) }), Type.Null()], {
      errorMessage: `${name} must be a relationship object`,
    }),
  );

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
  const relationships = Object.fromEntries((options.relationships ?? []).map((name) => [name, relationshipObject(name)]));
  return Type.Object(
    {
      data: Type.Object(
        {
          type: Type.Union(
            accepted.map((type) => Type.Literal(type)),
            { errorMessage: `data.type must be ${types.map((t) => `"${t}"`).join(' or ')}` },
          ),
          id: nullable(Type.String(), 'data.id must be a string'),
          attributes: nullable(Type.Object((options.attributes ?? {}) as A), 'data.attributes must be an object'),
          relationships: nullable(Type.Object(relationships), 'data.relationships must be an object'),
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
export const Attr = {
  string: (description?: string) => Type.Optional(Type.Union([Type.String(), Type.Null()], description ? { description } : {})),
  boolean: (description?: string) => Type.Optional(Type.Union([Type.Boolean(), Type.Null()], description ? { description } : {})),
  integer: (description?: string) => Type.Optional(Type.Union([Type.Integer(), Type.Null()], description ? { description } : {})),
  strings: (description?: string) =>
    Type.Optional(Type.Union([Type.Array(Type.String()), Type.Null()], description ? { description } : {})),
  object: (description?: string) => Type.Optional(Type.Union([Type.Object({}), Type.Null()], description ? { description } : {})),
};
