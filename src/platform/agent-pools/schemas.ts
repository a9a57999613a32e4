/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, noContent, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `agent-pools` resource. */
export const AGENT_POOL = resourceSchema(
  'agent-pools',
  {
    name: A.string(),
    'created-at': A.time(),
    'organization-scoped': A.boolean(),
    'agent-count': A.integer(),
  },
  { relationships: ['agents', 'allowed-workspaces', 'authentication-tokens', 'excluded-workspaces', 'organization', 'workspaces'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const AGENT_POOLS_RESPONSES: ResponseTable = {
  'GET /organizations/:org/agent-pools': ok(paged(AGENT_POOL)),
  'POST /organizations/:org/agent-pools': created(single(AGENT_POOL)),
  'GET /agent-pools/:id': ok(single(AGENT_POOL)),
  'PATCH /agent-pools/:id': ok(single(AGENT_POOL)),
  'DELETE /agent-pools/:id': noContent,
};
