import type { FastifyInstance } from 'fastify';
import type { PlatformContext } from '../../platform/context.js';
import { runDetail, runList } from './run-view.js';

/**
 * The inspector's run data: `GET /_emulator/ui/runs` (newest first, for a workspace given as
 * `organization/name` or id, or an organization) and `GET /_emulator/ui/runs/:id` (the run view).
 */
export function inspectorRunRoutes(app: FastifyInstance, context: PlatformContext): void {
  app.get<{ Querystring: { workspace?: string; organization?: string } }>(
    '/ui/runs',
    {
      schema: {
        summary: "the inspector's run list, newest first (?workspace=organization/name or ?organization=name)",
        querystring: {
          type: 'object',
          properties: { workspace: { type: 'string' }, organization: { type: 'string' } },
        },
      },
    },
    async (request, reply) => {
      const { workspace, organization } = request.query;
      const list = runList(context.store.db, {
        ...(workspace ? { workspace } : {}),
        ...(organization ? { organization } : {}),
      });
      if (list === null) return reply.code(404).send({ error: `no workspace or organization ${workspace ?? organization ?? ''}` });
      return list;
    },
  );
  app.get<{ Params: { id: string } }>(
    '/ui/runs/:id',
    { schema: { summary: "the inspector's view of one run: timeline, events, logs, task stages, policy checks" } },
    async (request, reply) => runDetail(context, request.params.id) ?? reply.code(404).send({ error: `no run ${request.params.id}` }),
  );
}
