/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, ok, paged, resourceSchema, type ResponseTable } from '../jsonapi/responses.js';

/** A workspace's or project's own binding: no links. */
export const TAG_BINDING = resourceSchema('tag-bindings', { key: A.string(), value: A.string() }, { links: 'never' });

/** A binding in force; `links.inherited-from` names the project it comes from, if any. */
export const EFFECTIVE_TAG_BINDING = resourceSchema(
  'effective-tag-bindings',
  { key: A.string(), value: A.string() },
  { links: 'optional' },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const TAG_BINDINGS_RESPONSES: ResponseTable = {
  'GET /workspaces/:id/tag-bindings': ok(paged(TAG_BINDING)),
  'GET /projects/:id/tag-bindings': ok(paged(TAG_BINDING)),
  'PATCH /workspaces/:id/tag-bindings': ok(paged(TAG_BINDING)),
  'PATCH /projects/:id/tag-bindings': ok(paged(TAG_BINDING)),
  'GET /workspaces/:id/effective-tag-bindings': ok(paged(EFFECTIVE_TAG_BINDING)),
  'GET /projects/:id/effective-tag-bindings': ok(paged(EFFECTIVE_TAG_BINDING)),
};
