import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { parseJson } from '../../core/json.js';
import { parseBool } from '../framework/fields.js';
import type { LogicalRequest, RequestedOperation } from '../router.js';
import { LIST_MARKER_HEADER } from './list-method.js';

const badRequest = (message: string) => new ApiError(400, message, { messages: message ? [message] : [] });

/** The caller's token: `X-Vault-Token`, then `X-Store-Token`, then `Authorization: Bearer`. */
export function clientToken(request: FastifyRequest): string | undefined {
  const header = (name: string) => {
    const value = request.headers[name];
    return (Array.isArray(value) ? value[0] : value)?.trim() || undefined;
  };
  const bearer = /^Bearer\s+(.+)$/i.exec(header('authorization') ?? '')?.[1]?.trim();
  return header('x-vault-token') ?? header('x-store-token') ?? (bearer || undefined);
}

function queryData(request: FastifyRequest): Record<string, unknown> {
  const url = new URL(request.url, 'http://localhost');
  const data: Record<string, unknown> = {};
  for (const [key, value] of url.searchParams) {
    if (key === 'help' || key === 'list') continue;
    const previous = data[key];
    data[key] = previous === undefined ? value : Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return data;
}

/** POST/PUT bodies: JSON objects, or forms when sent as such; an empty body is no data. */
function bodyData(request: FastifyRequest): Record<string, unknown> {
  const raw = typeof request.body === 'string' ? request.body : '';
  if (raw.trim() === '') return {};
  const contentType = String(request.headers['content-type'] ?? '');
  const trimmed = raw.trimStart();
  if (contentType.startsWith('application/x-www-form-urlencoded') && !trimmed.startsWith('{') && !trimmed.startsWith('[')) {
    const data: Record<string, unknown> = {};
    for (const [key, value] of new URLSearchParams(raw)) data[key] = data[key] === undefined ? value : `${String(data[key])},${value}`;
    return data;
  }
  let parsed: unknown;
  try {
    parsed = parseJson(raw);
  } catch {
    throw badRequest('error parsing JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw badRequest('error parsing JSON');
  return parsed as Record<string, unknown>;
}

function operationOf(request: FastifyRequest): RequestedOperation {
  if (request.headers[LIST_MARKER_HEADER] !== undefined) return 'list';
  switch (request.method) {
    case 'GET':
    case 'HEAD': {
      const list = new URL(request.url, 'http://localhost').searchParams.get('list');
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
    default:
      throw new ApiError(405, 'unsupported method', { messages: [] });
  }
}

/** Translates an HTTP request under `/v1/` into the logical request every backend handles. */
export function toLogicalRequest(request: FastifyRequest): LogicalRequest {
  const operation = operationOf(request);
  const rawPath = new URL(request.url, 'http://localhost').pathname.replace(/^\/v1\/?/, '');
  let path: string;
  try {
    path = decodeURIComponent(rawPath);
  } catch {
    throw badRequest('invalid path encoding');
  }
  const data = operation === 'write' ? bodyData(request) : operation === 'list' ? {} : queryData(request);
  return { operation, path: path.replace(/^\/+/, ''), data, clientToken: clientToken(request) };
}
