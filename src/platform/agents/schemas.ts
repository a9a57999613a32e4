/** Response schemas of this domain's resources (see ../jsonapi/responses.ts). */
import { A, created, ok, paged, resourceSchema, type ResponseTable, single } from '../jsonapi/responses.js';

/** The `agents` resource. */
export const AGENT = resourceSchema(
  'agents',
  { name: A.nullable(A.string()), status: A.string(), 'ip-address': A.nullable(A.string()), 'last-ping-at': A.time() },
  { relationships: ['agent-pool'] },
);

/** An agent pool's token (`token` only in the answer that created it). */
export const AGENT_TOKEN = resourceSchema(
  'authentication-tokens',
  {
    'created-at': A.time(),
    'last-used-at': A.nullable(A.time()),
    description: A.nullable(A.string()),
    token: A.nullable(A.string()),
  },
  { relationships: ['created-by'] },
);

/** What each of this domain's routes answers, keyed as registered under /api/v2. */
export const AGENTS_RESPONSES: ResponseTable = {
  'POST /agent-pools/:id/authentication-tokens': created(single(AGENT_TOKEN)),
  'GET /agent-pools/:id/authentication-tokens': ok(paged(AGENT_TOKEN)),
  'GET /agent-pools/:id/agents': ok(paged(AGENT)),
  'GET /agents/:id': ok(single(AGENT)),
};
