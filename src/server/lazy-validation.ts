import * as ajvCompiler from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * Fastify's own ajv validation (same options, same errors), with each route's schema compiled on
 * the route's first request instead of at start. Compiling them all at `ready` (with ajv's
 * meta-schema first) was the largest single step of start-up, for routes a short CI run mostly
 * never calls; the platform tree already compiles its TypeBox checkers the same way
 * (platform/jsonapi/validation.ts). The schemas are constants of the code, so what a start-up
 * check could catch the tests catch.
 */

type ValidateFunction = ((data: unknown) => unknown) & { errors?: unknown };
type CompileRouteSchema = (route: object) => ValidateFunction;
type BuildValidator = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildValidator'];

type BuildRouteCompiler = (externalSchemas: unknown, options: unknown) => CompileRouteSchema;

/**
 * Fastify's ajv validator builder, made on the first validation: ajv is loaded only then (the build
 * loads the package on first use, LAZY_MODULES). Read through the package's named `AjvCompiler`
 * export (its module.exports, under another name) because the bundle's stand-in for the package
 * is an object, never the function itself. Its declared types describe ajv's compile, not the
 * route-schema compiler it returns at run time; this is the shape Fastify calls.
 */
let buildAjvValidator: BuildRouteCompiler | undefined;
const ajvValidatorBuilder = () =>
  (buildAjvValidator ??= (ajvCompiler as unknown as { AjvCompiler: () => BuildRouteCompiler }).AjvCompiler());

function lazyValidators(externalSchemas: unknown, options: unknown): CompileRouteSchema {
  let compiler: CompileRouteSchema | undefined;
  return (route) => {
    let validate: ValidateFunction | undefined;
    // Fastify reads `errors` from the function it was given when validation returns false.
    const lazy: ValidateFunction = (data) => {
      compiler ??= ajvValidatorBuilder()(externalSchemas, options);
      validate ??= compiler(route);
      const result = validate(data);
      lazy.errors = validate.errors;
      return result;
    };
    return lazy;
  };
}

/** The `schemaController` option that makes Fastify's validation lazy. */
export const lazyValidation = {
  compilersFactory: { buildValidator: lazyValidators as unknown as BuildValidator },
} satisfies FastifyServerOptions['schemaController'];
