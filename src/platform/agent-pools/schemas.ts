/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, crud, resourceSchema, type ResponseTable } from '../jsonapi/responses.js';

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
  ...crud('/organizations/:org/agent-pools', '/agent-pools/:id', AGENT_POOL),
};
