import type { FastifyInstance } from 'fastify';
import { ClockMovedBackwardsError } from '../core/clock.js';
import { DurationError, parseDurationMs } from '../core/duration.js';
import type { Runtime } from '../runtime.js';

interface ClockBody {
  advance?: unknown;
  set?: unknown;
  force?: unknown;
}

/** RFC 3339 with a zone (`Z` or an offset), the only form `set` accepts. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/**
 * `/_emulator/clock`: read the emulated time; move it forward (`advance`) or to an instant (`set`).
 * Moving runs everything that falls due on the way, in time order, before answering, and the
 * answer lists what ran. Backwards needs `force` (nothing is undone) and is a 409 otherwise.
 */
export async function clockRoutes(app: FastifyInstance, runtime: Runtime): Promise<void> {
  const { clock, scheduler } = runtime;
  const state = () => {
    const next = scheduler.nextDueMs();
    return {
      now: clock.now().toISOString(),
      'offset-ms': clock.offset,
      'next-due': next === undefined ? null : new Date(next).toISOString(),
    };
  };

  app.get('/clock', async () => state());

  app.post('/clock', async (request, reply) => {
    const body = (request.body ?? {}) as ClockBody;
    if (typeof body !== 'object' || Array.isArray(body)) return reply.code(400).send({ error: 'the body must be a JSON object' });
    const hasAdvance = body.advance !== undefined;
    const hasSet = body.set !== undefined;
    if (hasAdvance === hasSet)
      return reply.code(400).send({ error: 'give exactly one of "advance" (a duration such as "36h") or "set" (an RFC 3339 time)' });
    if (body.force !== undefined && typeof body.force !== 'boolean') return reply.code(400).send({ error: '"force" must be a boolean' });

    let target: number;
    if (hasAdvance) {
      try {
        target = clock.nowMs() + parseDurationMs(body.advance);
      } catch (error) {
        if (error instanceof DurationError)
          return reply.code(400).send({ error: `"advance" must be a non-negative duration such as "90s" or "36h" (${error.message})` });
        throw error;
      }
    } else {
      const parsed = typeof body.set === 'string' && RFC3339.test(body.set) ? Date.parse(body.set) : Number.NaN;
      if (Number.isNaN(parsed)) return reply.code(400).send({ error: '"set" must be an RFC 3339 time such as "2030-01-01T00:00:00Z"' });
      target = parsed;
    }

    // Dates end at ±8.64e15 ms; past that the clock could not be read back.
    if (!Number.isFinite(target) || Math.abs(target) > 8.64e15) return reply.code(400).send({ error: 'that time is out of range' });

    try {
      const ran = await scheduler.advanceTo(target, body.force === true);
      return { ...state(), ran };
    } catch (error) {
      if (error instanceof ClockMovedBackwardsError) {
        return reply
          .code(409)
          .send({ error: 'the clock only moves forward; send "force": true to move it back (work that already ran is not undone)' });
      }
      throw error;
    }
  });
}
