import type { FastifySchemaCompiler } from 'fastify';
import type { TSchema } from '@fastify/type-provider-typebox';
import { Compile } from 'typebox/compile';
import { ApiError } from '../../core/errors.js';

/**
 * Route schemas are TypeBox declarations checked by TypeBox's compiled checker: no coercion, no
 * defaults, nothing removed, so a handler sees exactly what the client sent. A failure becomes
 * the platform's own error document: 422 with `source.pointer` for a body, 400 with
 * `source.parameter` for a query. A schema may carry `errorMessage` for the exact text clients
 * know; otherwise the text is built from the declared type ("name must be a string").
 */

interface Issue {
  keyword: string;
  schemaPath: string;
  instancePath: string;
  params: Record<string, unknown>;
}

type Schema = Record<string, unknown>;
type Checker = { Check(value: unknown): boolean; Errors(value: unknown): Issue[] };

// Routes share schema objects (the same params, the same envelope), so each compiles once.
const compiled = new WeakMap<object, Checker>();

function checkerFor(schema: TSchema): Checker {
  let checker = compiled.get(schema);
  if (!checker) {
    checker = Compile(schema);
    compiled.set(schema, checker);
  }
  return checker;
}

/** The schema a `#/properties/data/anyOf/0` path names inside `root`. */
function schemaAt(root: Schema, schemaPath: string): Schema | undefined {
  let at: unknown = root;
  for (const key of schemaPath.replace(/^#\/?/, '').split('/').filter(Boolean)) {
    at = (at as Record<string, unknown> | undefined)?.[decodeSegment(key)];
  }
  return at as Schema | undefined;
}

const decodeSegment = (segment: string) => segment.replace(/~1/g, '/').replace(/~0/g, '~');

/** What a value of this schema is, in words ("a string", "an array of strings"). */
function described(schema: Schema | undefined): string | undefined {
  if (!schema) return undefined;
  if (Array.isArray(schema['anyOf'])) {
    const members = (schema['anyOf'] as Schema[]).filter((member) => member['type'] !== 'null');
    return members.length === 1 ? described(members[0]) : undefined;
  }
  switch (schema['type']) {
    case 'string':
      return 'a string';
    case 'boolean':
      return 'a boolean';
    case 'integer':
      return 'an integer';
    case 'number':
      return 'a number';
    case 'object':
      return 'an object';
    case 'array':
      return (schema['items'] as Schema | undefined)?.['type'] === 'string' ? 'an array of strings' : 'an array';
    default:
      return undefined;
  }
}

/** The first failure, reported at its outermost schema so a union's own message wins over its members'. */
function firstFailure(root: Schema, issues: Issue[]): { path: string; schema: Schema | undefined; missing: boolean } {
  const first = issues[0] as Issue;
  if (first.keyword === 'required') {
    const names = (first.params['requiredProperties'] ?? [first.params['missingProperty']]) as string[];
    const name = String(names[0]);
    const parent = schemaAt(root, first.schemaPath);
    const properties = parent?.['properties'] as Record<string, Schema> | undefined;
    return { path: `${first.instancePath}/${name}`, schema: properties?.[name], missing: true };
  }
  const samePlace = issues.filter((issue) => issue.instancePath === first.instancePath);
  const outermost = samePlace.reduce((best, issue) => (issue.schemaPath.length < best.schemaPath.length ? issue : best), first);
  const schema = schemaAt(root, outermost.schemaPath);
  // A bad element of a list of strings is reported on the list ("stages must be an array of strings").
  const element = /^(.*)\/\d+$/.exec(first.instancePath);
  const list = /^(.*)\/items$/.exec(outermost.schemaPath);
  if (element && list && schema?.['type'] !== 'object' && schema?.['errorMessage'] === undefined) {
    return { path: element[1] as string, schema: schemaAt(root, (list[1] as string).replace(/\/anyOf\/\d+$/, '')), missing: false };
  }
  return { path: first.instancePath, schema, missing: false };
}

function message(name: string, schema: Schema | undefined, missing: boolean): string {
  const custom = schema?.['errorMessage'];
  if (typeof custom === 'string') return custom;
  if (missing) return `${name} is required`;
  const kind = described(schema);
  return kind ? `${name} must be ${kind}` : `${name} is invalid`;
}

/** Builds the platform error for a value that failed `schema` in `part` of the request. */
export function validationError(schema: TSchema, part: string, value: unknown): ApiError {
  // An optional body that is present is reported against the body it should have been.
  const members = (schema as unknown as Schema)['anyOf'] as TSchema[] | undefined;
  if ((schema as unknown as Schema)['optionalBody'] && members?.[0]) return validationError(members[0], part, value);
  const root = schema as unknown as Schema;
  const { path, schema: failed, missing } = firstFailure(root, checkerFor(schema).Errors(value));
  const segments = path.split('/').filter(Boolean).map(decodeSegment);
  if (part === 'body') {
    const name = segments[segments.length - 1] ?? 'body';
    return new ApiError(422, message(name, failed, missing), { title: 'invalid attribute', pointer: path || '/data' });
  }
  const parameter = segments[0] ?? part;
  return new ApiError(400, message(parameter, failed, missing), { title: 'bad request', parameter });
}

/** The platform's validator compiler, for any scope that declares routes with TypeBox. */
export const platformValidatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  // Compiled on a route's first request, not at start: most routes of a short CI run never run.
  let checker: Checker | undefined;
  return (value: unknown) => {
    checker ??= checkerFor(schema);
    if (checker.Check(value)) return true;
    return { error: validationError(schema, httpPart ?? 'body', value) };
  };
};
