import type { FastifyInstance } from 'fastify';
import type { ControllableClock } from '../../core/clock.js';
import { HarnessError } from './errors.js';
import { parseRule, ruleView, type FaultRules } from './faults.js';

const RULE = {
  type: 'object',
  description: 'match on any of prefix, method, path, token-accessor; one effect: status, delay, reset or timeout',
  properties: {
    prefix: { type: 'string', description: 'a path prefix: /api/v2, /api/registry, /v1, …' },
    method: { type: 'string', description: 'GET, POST, LIST, …' },
    path: { type: 'string', description: 'a path glob: * within a segment, ** across segments' },
    'token-accessor': { type: 'string', description: "a secrets token's accessor or a platform token's id" },
    status: { type: 'integer', minimum: 200, maximum: 599, description: "answer with this status, in the API's own error format" },
    body: { description: 'the body to answer with instead of the error document' },
    headers: { type: 'object', description: 'headers of the injected answer (strings or numbers), e.g. {"Retry-After": 2}' },
    delay: { type: 'integer', minimum: 0, description: 'real milliseconds to wait first (alone: latency only)' },
    reset: { type: 'boolean', description: 'drop the connection without an answer' },
    timeout: { type: 'boolean', description: 'hold the request until the client gives up' },
    probability: { type: 'number', description: 'apply to this share of matches (above 0, at most 1)' },
    times: { type: 'integer', minimum: 1, description: 'apply this often, then the rule is spent' },
    after: { type: 'integer', minimum: 0, description: 'let this many matches through first' },
  },
  examples: [{ prefix: '/v1', method: 'GET', status: 503, headers: { 'Retry-After': 1 }, times: 2 }],
} as const;

const BY_ID = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] } as const;

/** `/_emulator/faults`: rules that make the APIs misbehave on purpose; `/_emulator/reset` clears them. */
export function faultRoutes(app: FastifyInstance, faults: FaultRules, clock: ControllableClock): void {
  app.post('/faults', { schema: { summary: 'add a fault rule (first matching rule wins)', body: RULE } }, async (request, reply) => {
    const rule = parseRule(request.body ?? {}, clock.now());
    faults.add(rule);
    return reply.code(201).send(ruleView(rule));
  });
  app.get('/faults', { schema: { summary: 'the fault rules with their match and hit counts' } }, async () => ({
    faults: faults.list().map(ruleView),
  }));
  app.get<{ Params: { id: string } }>('/faults/:id', { schema: { summary: 'one fault rule', params: BY_ID } }, async (request) => {
    const rule = faults.list().find((candidate) => candidate.id === request.params.id);
    if (rule === undefined) throw new HarnessError(404, `no fault rule ${request.params.id}`);
    return ruleView(rule);
  });
  app.delete<{ Params: { id: string } }>(
    '/faults/:id',
    { schema: { summary: 'remove one fault rule', params: BY_ID } },
    async (request, reply) => {
      if (!faults.remove(request.params.id)) throw new HarnessError(404, `no fault rule ${request.params.id}`);
      return reply.code(204).send();
    },
  );
  app.delete('/faults', { schema: { summary: 'remove every fault rule' } }, async () => ({ removed: faults.clear() }));
}
