import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../../core/errors.js';
import type { LogicalResponse } from '../framework/types.js';
import { holdsLongList, jsonBytes } from './json-pieces.js';

/**
 * Exactly `application/json`: one real client compares the header as a string, so the
 * `; charset=utf-8` a framework would add breaks its error handling.
 */
export const JSON_TYPE = 'application/json';

const asIs = (text: unknown) => String(text);

/**
 * Up to this length an answer goes out as text; past it, as a Buffer. Text is cheaper for the usual
 * answer (see `send`), a Buffer for a large one (a batch of 100 encryptions measured ~7% dearer as text).
 */
const TEXT_LIMIT = 16 * 1024;

const NEWLINE = 0x0a;

/**
 * A large answer's JSON and its closing newline written straight into one Buffer: `${json}\n`
 * would be a second string, which the encoding flattens into a third, each as long as the answer
 * (two more 180 KB large objects per batch of 100 encryptions for the collector).
 */
function largeAnswer(json: string): Buffer {
  const length = Buffer.byteLength(json);
  const bytes = Buffer.allocUnsafe(length + 1);
  bytes.write(json);
  bytes[length] = NEWLINE;
  return bytes;
}

function send(reply: FastifyReply, status: number, body: unknown, longList = false): FastifyReply {
  // A long list's answer is written piece by piece (json-pieces.ts): one string of it all costs a flattening.
  const json = longList ? undefined : JSON.stringify(body);
  return (
    reply
      .code(status)
      .header('content-type', JSON_TYPE)
      .header('cache-control', 'no-store')
      // Fastify appends `; charset=utf-8` to JSON content types it serializes itself, so text goes through a
      // serializer that leaves it as it is, and a Buffer is not serialized at all. Text, not a Buffer, for a
      // small answer: Node appends it to the head's string instead of the body being encoded into a Buffer
      // of its own first (a measured ~12% of a 1 KB transit encrypt's server CPU).
      .serializer(asIs)
      .send(json === undefined ? jsonBytes(body) : json.length < TEXT_LIMIT ? `${json}\n` : largeAnswer(json))
  );
}

/** Whether a response goes out as 204: nothing in it (no data, auth, lease, warnings or wrap info). */
export function isEmptyResponse(response: LogicalResponse | undefined): boolean {
  if (!response) return true;
  return response.data === undefined && !response.auth && !response.warnings?.length && !response.lease && !response.wrapInfo;
}

/** The standard envelope of a non-raw response, as the real service writes it. */
export function logicalEnvelope(response: LogicalResponse, requestId: string = randomUUID()): Record<string, unknown> {
  const envelope: Record<string, unknown> = {
    request_id: requestId,
    lease_id: response.lease?.leaseId ?? '',
    renewable: response.lease?.renewable ?? false,
    lease_duration: response.lease?.durationSeconds ?? 0,
    data: response.data ?? null,
    wrap_info: response.wrapInfo ?? null,
    warnings: response.warnings?.length ? response.warnings : null,
    auth: response.auth ?? null,
  };
  return response.dataAtTopLevel && response.data ? { ...response.data, ...envelope } : envelope;
}

export function sendLogical(reply: FastifyReply, response: LogicalResponse | undefined): FastifyReply {
  if (response?.raw) {
    const body = typeof response.raw.body === 'string' ? Buffer.from(response.raw.body) : response.raw.body;
    return reply.code(response.raw.status).header('content-type', response.raw.contentType).header('cache-control', 'no-store').send(body);
  }
  if (!response || isEmptyResponse(response)) return reply.code(204).header('cache-control', 'no-store').send();
  return send(reply, response.status ?? 200, logicalEnvelope(response), holdsLongList(response.data));
}

/** `{"errors": [...]}` with the status the real service uses; `[]` for a plain 404. */
export function sendSecretsError(reply: FastifyReply, error: ApiError): FastifyReply {
  const messages = error.options.messages ?? (error.status === 404 ? [] : [error.detail]);
  return send(reply, error.status, { errors: messages });
}
