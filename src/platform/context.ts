import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyBaseLogger, FastifyInstance, RawReplyDefaultExpression, RawRequestDefaultExpression, RawServerDefault } from 'fastify';
import type { Runtime } from '../runtime.js';

/** What platform routes are built from; an alias today, a place to add shared services later. */
export type PlatformContext = Runtime;

/** A platform scope whose route schemas are TypeBox declarations (see jsonapi/schemas.ts). */
export type PlatformApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;
