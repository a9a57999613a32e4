import { Type } from '@fastify/type-provider-typebox';
import { ApiError } from '../../core/errors.js';
import { isoTimestamp } from '../../core/clock.js';
import { auditTrailOrganization, bearerToken, UNAUTHORIZED } from '../auth/authenticate.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { readPage } from '../jsonapi/pagination.js';
import type { AuditEventRow } from './repo.js';

const QUERY = Type.Object({
  since: Type.Optional(Type.String()),
  'page[number]': Type.Optional(Type.String()),
  'page[size]': Type.Optional(Type.String()),
});

/** An event as the audit-trail feed sends it (plain JSON, not JSON:API). */
function eventJson(row: AuditEventRow) {
  return {
    id: row.id,
    version: '0',
    type: 'Resource',
    timestamp: isoTimestamp(row.timestamp),
    auth: {
      accessor_id: row.accessorId,
      description: row.accessorDescription,
      type: row.accessorType,
      impersonator_id: null,
      organization_id: row.organizationId,
    },
    request: { id: row.requestId },
    resource: { id: row.resourceId, type: row.resourceType, action: row.action, meta: null },
  };
}

/**
 * `GET /api/v2/organization/audit-trail` (hosted edition): read with the organization's
 * audit-trail token (which opens nothing else) or its organization token; any other is a 401 here.
 */
export async function auditTrailRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const { db } = context.store;
  app.get('/organization/audit-trail', { schema: { querystring: QUERY }, config: { public: true } }, async (request, reply) => {
    const organizationId = auditTrailOrganization(db, context.clock, bearerToken(request.headers.authorization));
    if (!organizationId) throw UNAUTHORIZED;
    const page = readPage(request.query);
    let since: Date | undefined;
    if (request.query.since !== undefined) {
      since = new Date(request.query.since);
      if (Number.isNaN(since.getTime())) {
        throw new ApiError(400, 'since must be an ISO 8601 time', { title: 'bad request', parameter: 'since' });
      }
    }
    const { rows, total } = context.services.auditTrail.page(organizationId, since, page);
    const pages = Math.max(1, Math.ceil(total / page.size));
    return reply
      .code(200)
      .type('application/json')
      .send({
        data: rows.map(eventJson),
        pagination: {
          current_page: page.number,
          prev_page: page.number > 1 ? page.number - 1 : null,
          next_page: page.number < pages ? page.number + 1 : null,
          total_pages: pages,
          total_count: total,
        },
      });
  });
}
