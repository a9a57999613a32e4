import { randomUUID } from 'node:crypto';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { sendDocument, singleDocument } from '../jsonapi/documents.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { Attr, params, resourceBody } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import type { AuditConfigurationChange, LoadedAuditConfiguration } from './service.js';

const BODY = resourceBody(['audit-configurations'], {
  allowEmptyType: true,
  attributes: {
    'audit-trails': Attr.object('{enabled}'),
    'hcp-audit-log-streaming': Attr.object('{enabled, organization-id, use-default-organization}'),
  },
});

function auditConfigurationResource({ organization, configuration: c, updatedAt, canManage }: LoadedAuditConfiguration): ResourceObject {
  return {
    id: `ac-${organization.id}`,
    type: 'audit-configurations',
    attributes: {
      'audit-trails': { enabled: c.auditTrailsEnabled },
      'hcp-audit-log-streaming': {
        enabled: c.streamingEnabled,
        'organization-id': c.streamingOrganizationId,
        'use-default-organization': c.useDefaultOrganization,
      },
      permissions: {
        'can-enable-hcp-audit-log-streaming': canManage,
        'can-set-hcp-audit-log-streaming-organization-id': canManage,
        'can-use-default-audit-log-streaming-organization': canManage,
      },
      timestamps: {
        'audit-trails-enabled-at': c.auditTrailsEnabledAt,
        'audit-trails-disabled-at': c.auditTrailsDisabledAt,
        'hcp-audit-log-streaming-enabled-at': c.streamingEnabledAt,
        'hcp-audit-log-streaming-disabled-at': c.streamingDisabledAt,
      },
      'updated-at': updatedAt.toISOString(),
    },
    relationships: { organization: { data: { id: organization.name, type: 'organizations' } } },
  };
}

function readChange(body: unknown): AuditConfigurationChange {
  const attributes = new Attributes(readResource(body, ['audit-configurations'], { allowEmptyType: true }).attributes);
  const trails = attributes.nested('audit-trails');
  const streaming = attributes.nested('hcp-audit-log-streaming');
  const change: AuditConfigurationChange = {};
  const trailsEnabled = trails?.boolean('enabled');
  if (trailsEnabled !== undefined) change.auditTrailsEnabled = trailsEnabled;
  const streamingEnabled = streaming?.boolean('enabled');
  if (streamingEnabled !== undefined) change.streamingEnabled = streamingEnabled;
  const organizationId = streaming?.string('organization-id');
  if (typeof organizationId === 'string') change.streamingOrganizationId = organizationId;
  const useDefault = streaming?.boolean('use-default-organization');
  if (useDefault !== undefined) change.useDefaultOrganization = useDefault;
  return change;
}

/** `organizations/:org/audit-configuration` (hosted edition): read, change, send a test event. */
export async function auditConfigurationRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.auditConfiguration;
  const path = '/organizations/:org/audit-configuration';

  app.get(path, { schema: { params: params('org') } }, async (request, reply) => {
    return sendDocument(reply, 200, singleDocument(auditConfigurationResource(service.get(request.principal, request.params.org))));
  });

  app.patch(path, { schema: { params: params('org'), body: BODY } }, async (request, reply) => {
    const loaded = service.update(request.principal, request.params.org, readChange(request.body));
    return sendDocument(reply, 200, singleDocument(auditConfigurationResource(loaded)));
  });

  // Nothing is streamed anywhere; the answer names the test event as the real service does.
  app.post(`${path}/test`, { schema: { params: params('org') } }, async (request, reply) => {
    if (!service.get(request.principal, request.params.org).canManage) throw NOT_FOUND;
    return reply.code(200).type('application/json').send({ 'request-id': randomUUID() });
  });
}
