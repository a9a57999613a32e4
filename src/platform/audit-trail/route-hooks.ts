import type { RouteOptions } from 'fastify';
import { type auditRecorder, WRITES } from './recorder.js';

type Recorder = ReturnType<typeof auditRecorder>;
type HookList<T> = T | T[] | undefined;

/** A route's own hooks of one kind (one, several or none, as it declares them) as a list. */
function listOf<T>(hooks: HookList<T>): T[] {
  if (hooks === undefined) return [];
  return Array.isArray(hooks) ? [...hooks] : [hooks];
}

/**
 * An `onRoute` hook's work: a route that takes a write method gets the audit recorder's hooks as
 * its own (they still test the request's method, for a route that takes reads too); a read-only
 * route gets none, so a read pays nothing for the audit trail.
 */
export function auditWrites(route: RouteOptions, audit: Recorder): void {
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  if (!methods.some((method) => WRITES.has(method))) return;
  route.preHandler = [...listOf(route.preHandler), audit.preHandler];
  route.onSend = [...listOf(route.onSend), audit.onSend];
  route.onResponse = [...listOf(route.onResponse), audit.onResponse];
}
