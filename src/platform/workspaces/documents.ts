import type { FastifyRequest } from 'fastify';
import type { PlatformContext } from '../context.js';
import { requestOrigin } from '../jsonapi/documents.js';
import type { ResourceObject, SingleDocument } from '../jsonapi/types.js';
import type { RenderOptions } from './resource.js';
import type { Located } from './service.js';

export function renderOptions(context: PlatformContext, request: FastifyRequest): RenderOptions {
  return { dialect: context.config.dialect, edition: context.config.edition, origin: requestOrigin(request) };
}

/** The request's `include`, checked before anything changes (a bad value is a 400, and nothing happens). */
export function workspaceInclude(context: PlatformContext, request: FastifyRequest): Set<string> {
  return context.services.workspaceViews.includes.read(request.query as Record<string, unknown>);
}

/** The one-workspace document every workspace endpoint answers with. */
export function workspaceDocument(
  context: PlatformContext,
  request: FastifyRequest,
  located: Located,
  include: ReadonlySet<string>,
  /**
   * `located.level` was computed from `located.workspace` as it is (a read): it is reused instead
   * of asked again. After a change (a new project moves the grant) the level is worked out anew.
   */
  { levelCurrent = false }: { levelCurrent?: boolean } = {},
): SingleDocument {
  const views = context.services.workspaceViews;
  const rows = [located.workspace];
  const known = levelCurrent ? new Map([[located.workspace.id, located.level]]) : undefined;
  const data = views.render(located.scope, located.organization, rows, renderOptions(context, request), known)[0] as ResourceObject;
  const page = { principal: request.principal, organization: located.organization, rows, origin: requestOrigin(request) };
  const extra = views.include(include, page).toArray();
  return extra ? { data, included: extra } : { data };
}
