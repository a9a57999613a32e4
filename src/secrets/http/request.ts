import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { parseDurationSeconds } from '../../core/duration.js';
import { parseJson } from '../../core/json.js';
import { parseBool } from '../framework/fields.js';
import type { LogicalRequest, RequestedOperation } from '../router.js';
import { LIST_MARKER_HEADER } from '../../server/list-method.js';

const badRequest = (message: string) => new ApiError(400, message, { messages: message ? [message] : [] });

/** The caller's token: `X-Vault-Token`, then `X-Store-Token`, then `Authorization: Bearer`. */
export function clientToken(request: FastifyRequest): string | undefined {
  const header = (name: string) => {
    const value = request.headers[name];
    return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
  };
  const token = header('x-vault-token') ?? header('x-store-token');
  if (token !== undefined) return token;
  // Only without either token header: most clients send X-Vault-Token, and then the match is waste.
  return /^Bearer\s+(.+)$/i.exec(header('authorization') ?? '')?.[1]?.trim() || undefined;
}

/** Most requests have no query string: they share this one, which nothing changes. */
const NO_QUERY: Readonly<URLSearchParams> = new URLSearchParams();

/** The query string as sent (the part after the first `?`). */
function queryOf(request: FastifyRequest): Readonly<URLSearchParams> {
  const mark = request.url.indexOf('?');
  return mark === -1 ? NO_QUERY : new URLSearchParams(request.url.slice(mark + 1));
}

function queryData(request: FastifyRequest): Record<string, unknown> {
  const data: Record<string, unknown> = {};
  for (const [key, value] of queryOf(request)) {
    if (key === 'help' || key === 'list') continue;
    const previous = data[key];
    data[key] = previous === undefined ? value : Array.isArray(previous) ? [...(previous as unknown[]), value] : [previous, value];
  }
  return data;
}

/**
 * POST/PUT/PATCH bodies: JSON objects, or forms when sent as such. An empty body and a JSON
 * `null` are no data, as when the real service decodes them into a map.
 */
function bodyData(request: FastifyRequest): Record<string, unknown> {
  const raw = typeof request.body === 'string' ? request.body : '';
  if (raw.trim() === '') return {};
  const contentType = String(request.headers['content-type'] ?? '');
  const trimmed = raw.trimStart();
  if (contentType.startsWith('application/x-www-form-urlencoded') && !trimmed.startsWith('{') && !trimmed.startsWith('[')) {
    const data: Record<string, string> = {};
    for (const [key, value] of new URLSearchParams(raw)) data[key] = data[key] === undefined ? value : `${data[key]},${value}`;
    return data;
  }
  let parsed: unknown;
  try {
    parsed = parseJson(raw);
  } catch {
    throw badRequest('error parsing JSON');
  }
  if (parsed === null) return {};
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest('error parsing JSON');
  return parsed as Record<string, unknown>;
}

const MERGE_PATCH = 'application/merge-patch+json';

/** PATCH carries a JSON merge patch and nothing else (415 otherwise, with the real wording). */
function checkPatchContentType(request: FastifyRequest): void {
  const header = String(request.headers['content-type'] ?? '');
  const mediaType = header.split(';')[0]?.trim().toLowerCase() ?? '';
  if (mediaType === '') throw badRequest('mime: no media type');
  if (mediaType !== MERGE_PATCH) {
    throw new ApiError(415, 'unsupported media type', {
      messages: [`PATCH requires Content-Type of ${MERGE_PATCH}, provided ${mediaType}`],
    });
  }
}

function operationOf(request: FastifyRequest): RequestedOperation {
  if (request.headers[LIST_MARKER_HEADER] !== undefined) return 'list';
  switch (request.method) {
    case 'GET':
    case 'HEAD': {
      const list = queryOf(request).get('list');
      if (list === null || list === '') return 'read';
      const parsed = parseBool(list);
      if (parsed === undefined) throw new ApiError(400, 'invalid list parameter', { messages: [] });
      return parsed ? 'list' : 'read';
    }
    case 'POST':
    case 'PUT':
      return 'write';
    case 'DELETE':
      return 'delete';
    case 'PATCH':
      checkPatchContentType(request);
      return 'patch';
    default:
      throw new ApiError(405, 'unsupported method', { messages: [] });
  }
}

/**
 * The path after `/v1/` without leading slashes, percent-decoded but otherwise as sent. A URL parser would resolve `.`
 * and `..` segments (encoded ones included), so a request sent to one mount could land on
 * another path; kept as they are, they reach the backend they were addressed to, which refuses them.
 */
function logicalPath(request: FastifyRequest): string {
  const mark = request.url.indexOf('?');
  const rawPath = (mark === -1 ? request.url : request.url.slice(0, mark)).replace(/^\/v1\/?/, '');
  // Without a `%` there is nothing to decode (most paths): decoding would only copy the text.
  if (!rawPath.includes('%')) return rawPath.replace(LEADING_SLASHES, '');
  try {
    return decodeURIComponent(rawPath).replace(LEADING_SLASHES, '');
  } catch {
    throw badRequest('invalid path encoding');
  }
}

const LEADING_SLASHES = /^\/+/;

/**
 * `X-Vault-Wrap-TTL`: seconds as a number or a duration (`30s`, `5m`); 0 or absent asks for no
 * wrapping. A value that does not parse is the real service's 400, never an unwrapped answer.
 */
function wrapTtlOf(request: FastifyRequest): number | undefined {
  const value = request.headers['x-vault-wrap-ttl'];
  const raw = (Array.isArray(value) ? value[0] : value)?.trim();
  if (raw === undefined || raw === '') return undefined;
  const invalid = (detail: string) => badRequest(`error parsing X-Vault-Wrap-TTL header: ${detail}`);
  if (/^-\d/.test(raw)) throw invalid('requested wrap ttl cannot be negative');
  try {
    return parseDurationSeconds(raw);
  } catch {
    throw invalid(`time: invalid duration ${JSON.stringify(raw)}`);
  }
}

const HAS_BODY: ReadonlySet<RequestedOperation> = new Set(['write', 'patch']);

/** Translates an HTTP request under `/v1/` into the logical request every backend handles. */
export function toLogicalRequest(request: FastifyRequest): LogicalRequest {
  return new HttpLogicalRequest(request);
}

/**
 * A logical request read from an HTTP one. A class rather than an object literal: its getters and
 * its method live once on the prototype, where a literal made two accessors and a closure for
 * every request (about 1% of a small request's CPU).
 */
class HttpLogicalRequest implements LogicalRequest {
  readonly operation: RequestedOperation;
  readonly path: string;
  readonly data: Record<string, unknown>;
  readonly clientToken: string | undefined;
  readonly clientAddress: string;
  readonly wrapTtl: number | undefined;
  secretBodies: boolean | undefined = undefined;
  private originText: string | undefined = undefined;
  private peer: { certificate: Buffer | undefined } | undefined = undefined;

  constructor(private readonly request: FastifyRequest) {
    this.operation = operationOf(request);
    this.path = logicalPath(request);
    this.data = HAS_BODY.has(this.operation) ? bodyData(request) : this.operation === 'list' ? {} : queryData(request);
    this.clientToken = clientToken(request);
    this.clientAddress = request.ip;
    this.wrapTtl = wrapTtlOf(request);
  }

  // Read when asked (the identity token issuer): Fastify's host and protocol look at headers and
  // the socket, for an answer almost no request needs.
  get origin(): string {
    return (this.originText ??= `${this.request.protocol}://${this.request.host}`);
  }

  // Read when asked (a certificate login): Node builds the whole peer certificate object on
  // each call, a tenth of a token creation's CPU over HTTPS, and almost no request needs it.
  get clientCertificate(): Buffer | undefined {
    return (this.peer ??= { certificate: peerCertificate(this.request) }).certificate;
  }

  // The journal reads the body text only of routes that do not carry secrets, at the answer. Let go
  // of it sooner on those that do: held until then, a transit batch's 140 KB text outlived a young-
  // generation collection on most batches and was promoted, a third of the full collections they caused.
  releaseBodyText(): void {
    this.request.body = undefined;
  }
}

/** The client certificate of a TLS connection (DER), when the client sent one. */
function peerCertificate(request: FastifyRequest): Buffer | undefined {
  const socket = request.raw.socket as Partial<TLSSocket>;
  if (typeof socket.getPeerCertificate !== 'function') return undefined;
  const certificate = socket.getPeerCertificate(false);
  return certificate && certificate.raw ? certificate.raw : undefined;
}
