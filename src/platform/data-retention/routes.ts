import { unprocessable } from '../../core/errors.js';
import type { PlatformApp, PlatformContext } from '../context.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { sendDocument, sendNoContent } from '../jsonapi/documents.js';
import { Attr, params, resourceBody } from '../jsonapi/schemas.js';
import type { ResourceObject } from '../jsonapi/types.js';
import { RETENTION_POLICY_TYPES } from '../retention-policy.js';
import type { OwnedPolicy, RetentionChoice } from './service.js';

const DELETE_OLDER = RETENTION_POLICY_TYPES['delete-older'];
const DONT_DELETE = RETENTION_POLICY_TYPES['dont-delete'];
const BODY = resourceBody([DELETE_OLDER, DONT_DELETE], {
  attributes: { 'delete-older-than-n-days': Attr.integer(`${DELETE_OLDER} only: at least 1`) },
});
const DAYS = 'delete-older-than-n-days';

function policyResource({ policy, ownerPath }: OwnedPolicy): ResourceObject | null {
  if (policy === null) return null;
  const links = { self: `${ownerPath}/relationships/data-retention-policy` };
  return policy.kind === 'delete-older'
    ? { id: policy.id, type: DELETE_OLDER, attributes: { [DAYS]: policy.deleteOlderThanNDays }, links }
    : { id: policy.id, type: DONT_DELETE, attributes: {}, links };
}

/** The body's type picks the kind; delete-older needs a whole number of days, at least 1. */
function readChoice(body: unknown): RetentionChoice {
  const input = readResource(body, [DELETE_OLDER, DONT_DELETE]);
  if (input.type === DONT_DELETE) return { kind: 'dont-delete' };
  const days = new Attributes(input.attributes).integer(DAYS, { minimum: 1 });
  if (days === undefined) throw unprocessable(`${DAYS} is required`, `/data/attributes/${DAYS}`);
  return { kind: 'delete-older', deleteOlderThanNDays: days };
}

/**
 * `…/relationships/data-retention-policy` of organizations and workspaces (self-hosted edition):
 * GET answers the policy (or `data: null`), POST sets one of either kind, DELETE removes it.
 */
export async function dataRetentionRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const service = context.services.dataRetention;
  const show = (owned: OwnedPolicy) => ({ data: policyResource(owned) });

  const organizationPath = '/organizations/:org/relationships/data-retention-policy';
  const byOrganization = params('org');
  app.get(organizationPath, { schema: { params: byOrganization } }, async (request, reply) => {
    return sendDocument(reply, 200, show(service.organizationPolicy(request.principal, request.params.org)));
  });
  app.post(organizationPath, { schema: { params: byOrganization, body: BODY } }, async (request, reply) => {
    const choice = readChoice(request.body);
    return sendDocument(reply, 201, show(service.setOrganizationPolicy(request.principal, request.params.org, choice)));
  });
  app.delete(organizationPath, { schema: { params: byOrganization } }, async (request, reply) => {
    service.deleteOrganizationPolicy(request.principal, request.params.org);
    return sendNoContent(reply);
  });

  const workspacePath = '/workspaces/:id/relationships/data-retention-policy';
  const byWorkspace = params('id');
  app.get(workspacePath, { schema: { params: byWorkspace } }, async (request, reply) => {
    return sendDocument(reply, 200, show(service.workspacePolicy(request.principal, request.params.id)));
  });
  app.post(workspacePath, { schema: { params: byWorkspace, body: BODY } }, async (request, reply) => {
    const choice = readChoice(request.body);
    return sendDocument(reply, 201, show(service.setWorkspacePolicy(request.principal, request.params.id, choice)));
  });
  app.delete(workspacePath, { schema: { params: byWorkspace } }, async (request, reply) => {
    service.deleteWorkspacePolicy(request.principal, request.params.id);
    return sendNoContent(reply);
  });
}
