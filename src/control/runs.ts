import type { FastifyInstance, FastifyReply } from 'fastify';
import type { PlatformContext } from '../platform/context.js';
import { findRun } from '../platform/runs/repo.js';
import type { Progression } from '../platform/runs/engine.js';
import { findWorkspace } from '../platform/workspaces/repo.js';

const MODES: readonly Progression[] = ['immediate', 'clock', 'manual'];

const refuse = (reply: FastifyReply, status: number, message: string) => reply.code(status).send({ error: message });

/**
 * Pacing simulated runs from a test: `POST /runs/:id/advance` moves a run (or a query run) waiting under the
 * `manual` progression (or the `clock` one, without waiting for the clock) to its next state and
 * answers once it has stopped again; `PUT /runs/progression` chooses the progression globally or
 * for one workspace (runs created afterwards follow it).
 */
export async function runControlRoutes(app: FastifyInstance, runtime: PlatformContext): Promise<void> {
  const { engine } = runtime.services.runs;
  const { queries } = runtime.services;
  const { db } = runtime.store;
  const describe = (id: string) => {
    const run = findRun(db, id);
    return run && { id: run.id, status: run.status, waiting: engine.isGated(run.id) };
  };

  app.post<{ Params: { id: string } }>('/runs/:id/advance', async (request, reply) => {
    const run = findRun(db, request.params.id);
    const query = run ? undefined : queries.describe(request.params.id);
    if (query) {
      if (!(await queries.release(query.id)))
        return refuse(reply, 409, `query run ${query.id} is ${query.status} and not waiting to advance`);
      return queries.describe(query.id);
    }
    if (!run) return refuse(reply, 404, `no run ${request.params.id}`);
    await engine.whenSettled(run.id);
    if (!(await engine.release(run.id))) {
      return refuse(reply, 409, `run ${run.id} is ${findRun(db, run.id)?.status ?? 'gone'} and not waiting to advance`);
    }
    return describe(run.id);
  });

  app.get<{ Params: { id: string } }>('/runs/:id', async (request, reply) => {
    const found = describe(request.params.id);
    return found ?? refuse(reply, 404, `no run ${request.params.id}`);
  });

  app.put('/runs/progression', async (request, reply) => {
    const body = (request.body ?? {}) as { mode?: unknown; workspace?: unknown };
    if (typeof body.mode !== 'string' || !MODES.includes(body.mode as Progression)) {
      return refuse(reply, 400, `mode must be one of ${MODES.join(', ')}`);
    }
    if (body.workspace === undefined || body.workspace === null) {
      engine.setProgression(body.mode as Progression);
      return { mode: body.mode, workspace: null };
    }
    if (typeof body.workspace !== 'string' || !findWorkspace(db, body.workspace))
      return refuse(reply, 404, 'workspace must be the id of a workspace');
    engine.setProgression(body.mode as Progression, body.workspace);
    return { mode: body.mode, workspace: body.workspace };
  });
}
