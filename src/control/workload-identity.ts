import type { FastifyInstance, FastifyReply } from 'fastify';
import { DurationError, parseDurationMs } from '../core/duration.js';
import { newId } from '../core/ids.js';
import type { PlatformContext } from '../platform/context.js';
import { findOrganizationByName } from '../platform/organizations/repo.js';
import type { RunPhase } from '../platform/runs/phase-hooks.js';
import { findRun } from '../platform/runs/repo.js';
import { findWorkspaceByName } from '../platform/workspaces/repo.js';
import { mintWorkloadToken } from '../platform/workload-identity/mint.js';
import { namesOfWorkspace } from '../platform/workload-identity/names.js';

const PHASES: readonly RunPhase[] = ['plan', 'apply'];
export const DEFAULT_AUDIENCE = 'vault.workload.identity';

const refuse = (reply: FastifyReply, status: number, message: string) => reply.code(status).send({ error: message });

interface MintBody {
  workspace?: unknown;
  phase?: unknown;
  audience?: unknown;
  run?: unknown;
  ttl?: unknown;
}

/** A workspace id (`ws-…`) or `<organization>/<workspace>`; undefined when no such workspace exists. */
function workspaceIdOf(runtime: PlatformContext, reference: string): string | undefined {
  const { db } = runtime.store;
  const slash = reference.indexOf('/');
  if (slash < 0) return namesOfWorkspace(db, reference)?.workspace.id;
  const organization = findOrganizationByName(db, reference.slice(0, slash));
  return organization && findWorkspaceByName(db, organization.id, reference.slice(slash + 1))?.id;
}

/**
 * `POST /workload-identity-tokens`: a workload identity token for a workspace, phase and audience
 * without a run, signed and shaped exactly as a run's, for tests of any OIDC consumer (a JWT auth
 * method's roles, a cloud's identity federation).
 */
export async function workloadIdentityControlRoutes(app: FastifyInstance, runtime: PlatformContext): Promise<void> {
  app.post('/workload-identity-tokens', async (request, reply) => {
    const body = (request.body ?? {}) as MintBody;
    if (typeof body !== 'object' || Array.isArray(body)) return refuse(reply, 400, 'the body must be a JSON object');
    if (typeof body.workspace !== 'string' || body.workspace === '')
      return refuse(reply, 400, 'workspace is required: a workspace id or <organization>/<workspace>');
    const phase = body.phase ?? 'plan';
    if (typeof phase !== 'string' || !PHASES.includes(phase as RunPhase)) return refuse(reply, 400, 'phase must be plan or apply');
    const audience = body.audience ?? DEFAULT_AUDIENCE;
    if (typeof audience !== 'string' || audience === '') return refuse(reply, 400, 'audience must be a non-empty string');
    if (body.run !== undefined && (typeof body.run !== 'string' || body.run === ''))
      return refuse(reply, 400, 'run must be the id of a run of the workspace');
    let lifetimeMs: number | undefined;
    if (body.ttl !== undefined) {
      try {
        lifetimeMs = parseDurationMs(body.ttl);
      } catch (error) {
        if (error instanceof DurationError) return refuse(reply, 400, `ttl: ${error.message}`);
        throw error;
      }
      if (lifetimeMs < 1000) return refuse(reply, 400, 'ttl must be at least 1s');
    }
    const workspaceId = workspaceIdOf(runtime, body.workspace);
    const names = workspaceId === undefined ? undefined : namesOfWorkspace(runtime.store.db, workspaceId);
    if (!names) return refuse(reply, 404, `no workspace ${body.workspace}`);
    let runId: string;
    if (typeof body.run === 'string') {
      if (findRun(runtime.store.db, body.run)?.workspaceId !== names.workspace.id)
        return refuse(reply, 404, `no run ${body.run} in workspace ${names.workspace.id}`);
      runId = body.run;
    } else runId = newId('run');
    const minted = await mintWorkloadToken(runtime, runtime.services.signingKeys, {
      names,
      phase: phase as RunPhase,
      runId,
      audience,
      ...(lifetimeMs === undefined ? {} : { lifetimeMs }),
    });
    return reply.code(201).send({ token: minted.token, kid: minted.kid, claims: minted.claims });
  });
}
