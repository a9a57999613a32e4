/** Response schemas of this domain's routes (see ../jsonapi/responses.ts). */
import { Type } from '@fastify/type-provider-typebox';
import { A, bytes, ok, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `audit-configurations` resource (hosted edition). */
export const AUDIT_CONFIGURATION = resourceSchema(
  'audit-configurations',
  {
    'audit-trails': Type.Object({ enabled: A.boolean() }),
    'hcp-audit-log-streaming': Type.Object({
      enabled: A.boolean(),
      'organization-id': A.nullable(A.string()),
      'use-default-organization': A.boolean(),
    }),
    permissions: A.flags(),
    timestamps: Type.Record(Type.String(), A.nullable(A.string())),
    'updated-at': A.time(),
  },
  { relationships: ['organization'], links: 'never' },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const AUDIT_CONFIGURATION_RESPONSES: ResponseTable = {
  'GET /organizations/:org/audit-configuration': ok(single(AUDIT_CONFIGURATION)),
  'PATCH /organizations/:org/audit-configuration': ok(single(AUDIT_CONFIGURATION)),
  'POST /organizations/:org/audit-configuration/test': ok(
    bytes('application/json', 'the test event was sent', Type.Object({ 'request-id': A.string() })),
  ),
};
