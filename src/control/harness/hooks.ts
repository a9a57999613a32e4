import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { hasSecretBodies } from '../../core/redact.js';
import { sendError } from '../../platform/jsonapi/errors.js';
import type { Runtime } from '../../runtime.js';
import { clientMethod } from '../../server/list-method.js';
import { sendSecretsError } from '../../secrets/http/respond.js';
import { isJsonText, STREAMED } from './capture.js';
import type { FaultRule, FaultRules } from './faults.js';
import type { Journal } from './journal.js';
import type { Subjects } from './subject.js';
import { WatchedRequest } from './watched.js';

/** What the harness hooks share: the journal (null when `UNDERSTUDY_JOURNAL_SIZE=0`), the fault rules, who is calling. */
export interface HarnessParts {
  journal: Journal | null;
  faults: FaultRules;
  subjects: Subjects;
}

const WATCHED = Symbol('understudy.harness');
type HarnessRequest = FastifyRequest & { [WATCHED]?: WatchedRequest | null };

/** The API prefixes the harness sits in front of; the control plane is never among them. */
export function isHarnessedPath(path: string): boolean {
  return (
    path.startsWith('/api/') ||
    path === '/v1' ||
    path.startsWith('/v1/') ||
    path.startsWith('/.well-known/') ||
    path.startsWith('/_archivist/')
  );
}

const isSecrets = (path: string) => path === '/v1' || path.startsWith('/v1/');

/** An injected status in the API's own error format (or the rule's own body). */
function sendInjected(reply: FastifyReply, rule: FaultRule, path: string): FastifyReply {
  const status = rule.status ?? 500;
  reply.headers(rule.headers);
  if (rule.body !== null) return reply.code(status).send(rule.body);
  const error = new ApiError(status, `injected by understudy fault rule ${rule.id}`, { title: 'injected fault' });
  if (isSecrets(path)) return sendSecretsError(reply, error);
  if (path.startsWith('/api/v2/') || path.startsWith('/api/registry/')) return sendError(reply, error);
  return reply.code(status).send({ errors: [error.detail] });
}

/**
 * Installs the request journal and the fault rules on the root instance, before any tree is
 * registered, so they see every request to every API prefix once, wherever it is routed. With
 * the journal off and no rules, a request costs one test. The hooks take callbacks rather than
 * returning promises: every request passes through them, and a promise per hook per request is
 * most of what they would cost.
 */
export function installHarness(fastify: FastifyInstance, runtime: Runtime, parts: HarnessParts): void {
  const { journal, faults, subjects } = parts;
  const held = new Set<Socket>();
  // Declared up front, so every request object is made with the slot: set later on some requests
  // only, it would change their shape mid-request (V8 gives them another hidden class and a
  // separate property store), making the code that reads requests handle two shapes.
  fastify.decorateRequest(WATCHED, null);

  const record = (request: HarnessRequest, watched: WatchedRequest, status: number | null, durationMs: number) => {
    if (journal === null || watched.done) return;
    watched.done = true;
    watched.requestId = request.id;
    watched.status = status;
    watched.durationMs = Math.round(durationMs * 100) / 100;
    watched.subject = subjects.of(request, watched.rawPath);
    watched.secretBodies = hasSecretBodies(request) || request.routeOptions?.config?.secretBodies === true;
    watched.captureRequest(
      request.body,
      watched.carriesJson && isJsonText(request.headers['content-type'], request.body),
      Number(request.headers['content-length']) || 0,
      journal.arena,
    );
    journal.add(watched);
  };

  /** Drops or holds the connection; the journal records it when the connection ends. */
  const takeOver = (request: HarnessRequest, reply: FastifyReply, watched: WatchedRequest, hold: boolean) => {
    reply.hijack();
    const socket = request.raw.socket;
    const started = performance.now();
    socket.once('close', () => {
      held.delete(socket);
      record(request, watched, null, performance.now() - started);
    });
    if (hold) held.add(socket);
    else socket.destroy();
  };

  /** Applies the first rule that matches; resolves with whether the rule answered (or dropped) the request itself. */
  const applyFault = async (request: HarnessRequest, reply: FastifyReply, watched: WatchedRequest): Promise<boolean> => {
    const rule = faults.pick({ method: watched.method, path: watched.path, subject: () => subjects.of(request, watched.rawPath) });
    if (rule === undefined) return false;
    watched.fault = { rule: rule.id, effect: rule.effect };
    if (rule.delayMs > 0) await sleep(rule.delayMs);
    if (rule.effect === 'status') {
      sendInjected(reply, rule, watched.path);
      return true;
    }
    if (rule.effect === 'reset' || rule.effect === 'timeout') {
      takeOver(request, reply, watched, rule.effect === 'timeout');
      return true;
    }
    return false;
  };

  fastify.addHook('onRequest', (request: HarnessRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    if (journal === null && faults.size === 0) return done();
    const url = request.url;
    const mark = url.indexOf('?');
    const path = mark === -1 ? url : url.slice(0, mark);
    if (!isHarnessedPath(path)) return done();
    const watched = new WatchedRequest(
      journal?.allocateId() ?? 0,
      url,
      path,
      clientMethod(request) ?? request.method,
      Date.now(),
      runtime.clock.nowMs(),
    );
    request[WATCHED] = watched;
    if (faults.size === 0) return done();
    // A rule that answers (or drops the connection) ends the request here: `done` is not called.
    applyFault(request, reply, watched).then((answered) => {
      if (!answered) done();
    }, done);
  });

  if (journal !== null) {
    fastify.addHook(
      'onSend',
      (request: HarnessRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
        const watched = request[WATCHED];
        if (watched) {
          // A stream is read once, by the client; the journal notes only that there was one.
          const streamed = typeof payload === 'object' && payload !== null && typeof (payload as { pipe?: unknown }).pipe === 'function';
          watched.response.value = streamed ? STREAMED : payload;
          watched.response.json = watched.carriesJson && isJsonText(reply.getHeader('content-type') ?? '', payload);
        }
        done(null, payload);
      },
    );
    fastify.addHook('onResponse', (request: HarnessRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
      const watched = request[WATCHED];
      if (watched) record(request, watched, reply.statusCode, reply.elapsedTime);
      done();
    });
  }

  // A held connection never ends on its own; closing the server lets it go.
  fastify.addHook('preClose', async () => {
    for (const socket of held) socket.destroy();
  });
}
