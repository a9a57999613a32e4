/** Response schemas of this domain's routes (see ../jsonapi/responses.ts). */
import { Type } from '@fastify/type-provider-typebox';
import { A, bytes, ok, type ResponseTable } from '../jsonapi/responses.js';

/** One audit event, as the audit-trail API writes it (not JSON:API). */
const AUDIT_EVENT = Type.Object({
  id: A.string(),
  version: A.string(),
  type: A.string(),
  timestamp: A.time(),
  auth: Type.Object({}),
  request: Type.Object({ id: A.nullable(A.string()) }),
  resource: Type.Object({ id: A.string(), type: A.string(), action: A.string() }),
});

const PAGINATION = Type.Object({
  current_page: A.integer(),
  prev_page: A.nullable(A.integer()),
  next_page: A.nullable(A.integer()),
  total_pages: A.integer(),
  total_count: A.integer(),
});

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const AUDIT_TRAIL_RESPONSES: ResponseTable = {
  'GET /organization/audit-trail': ok(
    bytes(
      'application/json',
      'a page of audit events (hosted edition; not JSON:API)',
      Type.Object({ data: Type.Array(AUDIT_EVENT), pagination: PAGINATION }),
    ),
  ),
};
