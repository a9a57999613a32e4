import { Type, type Static } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { bearerToken } from '../auth/authenticate.js';
import type { PlatformContext } from '../context.js';
import { registerPlatformConventions } from '../conventions.js';

export const AGENT_API = '/api/agent';

const RegisterBody = Type.Union([Type.Object({ name: Type.Optional(Type.String({ maxLength: 255 })) }), Type.Null()]);
const StatusBody = Type.Union([Type.Object({ status: Type.Optional(Type.String()) }), Type.Null()]);
const AgentParams = Type.Object({ id: Type.String({ minLength: 1 }) });

/**
 * The small API an agent speaks with its pool's agent token (`Authorization: Bearer`): register
 * once, then report its status. This is understudy's own stand-in for the agent protocol, which
 * is not public: enough for a test or a script to play an agent and for `agents` to list it.
 */
export async function agentApiPlugin(app: FastifyInstance, context: PlatformContext): Promise<void> {
  const agents = context.services.agents;
  registerPlatformConventions(app, context, { ownNotFound: false });
  // Agent tokens are not API tokens: these routes skip the platform's check and verify their own.
  const open = { config: { public: true } };

  app.post<{ Body: Static<typeof RegisterBody> }>(
    `${AGENT_API}/register`,
    { ...open, schema: { body: RegisterBody } },
    async (request, reply) => {
      const agent = agents.register(bearerToken(request.headers.authorization), request.body?.name, request.ip);
      return reply.code(201).send({ agent_id: agent.id, agent_pool_id: agent.agentPoolId, status: agent.status });
    },
  );

  app.post<{ Params: Static<typeof AgentParams>; Body: Static<typeof StatusBody> }>(
    `${AGENT_API}/agents/:id/status`,
    { ...open, schema: { params: AgentParams, body: StatusBody } },
    async (request) => {
      const agent = agents.ping(bearerToken(request.headers.authorization), request.params.id, request.body?.status);
      return { agent_id: agent.id, status: agent.status, last_ping_at: agent.lastPingAt.toISOString() };
    },
  );
}
