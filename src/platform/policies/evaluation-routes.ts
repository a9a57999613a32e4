import type { PlatformApp, PlatformContext } from '../context.js';
import { listDocument, sendDocument, singleDocument } from '../jsonapi/documents.js';
import { badRequest } from '../../core/errors.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { paginate, readPage } from '../jsonapi/pagination.js';
import { listQuery, params } from '../jsonapi/schemas.js';
import type { Principal } from '../auth/principal.js';
import { filterOutcomes, policySetOutcomeResource, type OutcomeFilter } from './evaluations.js';

type ById = { Params: { id: string } };

const FILTER = /^filter\[([^\]]+)\]\[(status|enforcement_level)\]$/;
const STATUSES = ['passed', 'failed', 'errored'];
const LEVELS = ['advisory', 'mandatory', 'soft-mandatory', 'hard-mandatory'];

/** `filter[N][status]` and `filter[N][enforcement_level]` groups (go-tfe's PolicySetOutcomeListFilter); an unknown value is a 400. */
export function readOutcomeFilters(query: Record<string, unknown>): OutcomeFilter[] {
  const groups = new Map<string, OutcomeFilter>();
  for (const [name, raw] of Object.entries(query)) {
    const match = FILTER.exec(name);
    if (!match) continue;
    const value = Array.isArray(raw) ? String(raw.at(-1)) : String(raw);
    const [, group, field] = match as unknown as [string, string, 'status' | 'enforcement_level'];
    const allowed = field === 'status' ? STATUSES : LEVELS;
    if (!allowed.includes(value))
      throw badRequest(`${name} must be one of ${allowed.join(', ')}`, { title: 'bad request', parameter: name });
    const filter = groups.get(group) ?? {};
    if (field === 'status') filter.status = value;
    else filter.enforcementLevel = value;
    groups.set(group, filter);
  }
  return [...groups.values()];
}

/** `/task-stages/:id/policy-evaluations`, `/policy-evaluations/:id(/policy-set-outcomes)`, `/policy-set-outcomes/:id`. */
export async function policyEvaluationRoutes(app: PlatformApp, context: PlatformContext): Promise<void> {
  const evaluations = context.services.policyEvaluations;
  const stages = context.services.taskStages;
  const runs = context.services.runs;

  /** An evaluation's stage's run must be readable by the caller: otherwise it is the same 404 as a missing one. */
  const visibleStage = (principal: Principal, stageId: string) => {
    const stage = stages.findStage(stageId);
    if (!stage) throw NOT_FOUND;
    runs.locate(principal, stage.runId);
    return stage;
  };
  const visibleEvaluation = (principal: Principal, id: string) => {
    const row = evaluations.find(id);
    if (!row) throw NOT_FOUND;
    visibleStage(principal, row.taskStageId);
    return row;
  };

  app.get<ById>(
    '/task-stages/:id/policy-evaluations',
    { schema: { params: params('id'), querystring: listQuery() } },
    async (request, reply) => {
      const stage = visibleStage(request.principal, request.params.id);
      const items = evaluations.render(evaluations.ofStages([stage.id]));
      return sendDocument(reply, 200, listDocument(request, paginate(items, readPage(request.query as Record<string, unknown>))));
    },
  );

  app.get<ById>('/policy-evaluations/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const row = visibleEvaluation(request.principal, request.params.id);
    return sendDocument(reply, 200, singleDocument(evaluations.render([row])[0]!));
  });

  app.get<ById>(
    '/policy-evaluations/:id/policy-set-outcomes',
    { schema: { params: params('id'), querystring: listQuery() } },
    async (request, reply) => {
      const row = visibleEvaluation(request.principal, request.params.id);
      const query = request.query as Record<string, unknown>;
      const items = filterOutcomes(evaluations.outcomesOf([row.id]), readOutcomeFilters(query));
      return sendDocument(reply, 200, listDocument(request, paginate(items, readPage(query))));
    },
  );

  app.get<ById>('/policy-set-outcomes/:id', { schema: { params: params('id') } }, async (request, reply) => {
    const outcome = evaluations.findOutcome(request.params.id);
    if (!outcome) throw NOT_FOUND;
    visibleEvaluation(request.principal, outcome.policyEvaluationId);
    return sendDocument(reply, 200, singleDocument(policySetOutcomeResource(outcome)));
  });
}
