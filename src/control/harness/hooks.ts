import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { redactUrl } from '../../core/redact.js';
import { sendError } from '../../platform/jsonapi/errors.js';
import type { Runtime } from '../../runtime.js';
import { clientMethod } from '../../server/list-method.js';
import { sendSecretsError } from '../../secrets/http/respond.js';
import { isJsonText, lazyBodies, STREAMED, type SentBody } from './capture.js';
import type { FaultRule, FaultRules } from './faults.js';
import type { FaultMark, Journal } from './journal.js';
import type { Subjects } from './subject.js';

/** What the harness hooks share: the journal (null when `UNDERSTUDY_JOURNAL_SIZE=0`), the fault rules, who is calling. */
export interface HarnessParts {
  journal: Journal | null;
  faults: FaultRules;
  subjects: Subjects;
}

/** A request the harness watches, from its arrival to its answer. */
interface Watched {
  id: number;
  path: string;
  query: string;
  method: string;
  timeMs: number;
  virtualMs: number;
  fault: FaultMark | null;
  response: SentBody;
  /** Recorded already (a dropped or held connection has no onResponse). */
  done: boolean;
}

const WATCHED = Symbol('understudy.harness');
type HarnessRequest = FastifyRequest & { [WATCHED]?: Watched };

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
 * the journal off and no rules, a request costs one path test.
 */
export function installHarness(fastify: FastifyInstance, runtime: Runtime, parts: HarnessParts): void {
  const { journal, faults, subjects } = parts;
  const held = new Set<Socket>();

  const record = (request: HarnessRequest, watched: Watched, status: number | null, durationMs: number) => {
    if (journal === null || watched.done) return;
    watched.done = true;
    const rules = isSecrets(watched.path) ? 'secrets' : 'platform';
    const objects = watched.path.startsWith('/_archivist/');
    journal.add({
      id: watched.id,
      requestId: request.id,
      timeMs: watched.timeMs,
      virtualMs: watched.virtualMs,
      method: watched.method,
      path: watched.path,
      query: watched.query,
      status,
      durationMs: Math.round(durationMs * 100) / 100,
      subject: subjects.of(request, watched.path),
      ...lazyBodies(
        {
          body: request.body,
          json: !objects && isJsonText(request.headers['content-type'], request.body),
          bytes: Number(request.headers['content-length']) || 0,
        },
        watched.response,
        rules,
      ),
      fault: watched.fault,
    });
  };

  /** Drops or holds the connection; the journal records it when the connection ends. */
  const takeOver = (request: HarnessRequest, reply: FastifyReply, watched: Watched, hold: boolean) => {
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

  const applyFault = async (request: HarnessRequest, reply: FastifyReply, watched: Watched): Promise<FastifyReply | undefined> => {
    const rule = faults.pick({ method: watched.method, path: watched.path, subject: () => subjects.of(request, watched.path) });
    if (rule === undefined) return undefined;
    watched.fault = { rule: rule.id, effect: rule.effect };
    if (rule.delayMs > 0) await sleep(rule.delayMs);
    if (rule.effect === 'status') return sendInjected(reply, rule, watched.path);
    if (rule.effect === 'reset' || rule.effect === 'timeout') {
      takeOver(request, reply, watched, rule.effect === 'timeout');
      return reply;
    }
    return undefined;
  };

  fastify.addHook('onRequest', async (request: HarnessRequest, reply) => {
    if (journal === null && faults.size === 0) return undefined;
    const mark = request.url.indexOf('?');
    if (!isHarnessedPath(mark === -1 ? request.url : request.url.slice(0, mark))) return undefined;
    // The path too: a self-authorizing link carries its credential in a segment.
    const url = redactUrl(request.url);
    const query = url.indexOf('?');
    const watched: Watched = {
      id: journal?.allocateId() ?? 0,
      path: query === -1 ? url : url.slice(0, query),
      query: query === -1 ? '' : url.slice(query + 1),
      method: clientMethod(request) ?? request.method,
      timeMs: Date.now(),
      virtualMs: runtime.clock.nowMs(),
      fault: null,
      response: { body: null, json: false },
      done: false,
    };
    request[WATCHED] = watched;
    return faults.size === 0 ? undefined : applyFault(request, reply, watched);
  });

  if (journal !== null) {
    fastify.addHook('onSend', async (request: HarnessRequest, reply, payload) => {
      const watched = request[WATCHED];
      if (watched !== undefined) {
        const contentType = reply.getHeader('content-type');
        const json = !watched.path.startsWith('/_archivist/') && isJsonText(contentType ?? '', payload);
        // A stream is read once, by the client; the journal notes only that there was one.
        const streamed = typeof payload === 'object' && payload !== null && typeof (payload as { pipe?: unknown }).pipe === 'function';
        watched.response = { body: streamed ? STREAMED : payload, json };
      }
      return payload;
    });
    fastify.addHook('onResponse', async (request: HarnessRequest, reply) => {
      const watched = request[WATCHED];
      if (watched !== undefined) record(request, watched, reply.statusCode, reply.elapsedTime);
    });
  }

  // A held connection never ends on its own; closing the server lets it go.
  fastify.addHook('preClose', async () => {
    for (const socket of held) socket.destroy();
  });
}
