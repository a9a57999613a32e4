import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../core/errors.js';
import { isForeignKeyViolation } from '../db-errors.js';
import { MEDIA_TYPE } from './types.js';

const TITLES: Record<number, string> = {
  400: 'bad request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not found',
  409: 'conflict',
  413: 'payload too large',
  415: 'unsupported media type',
  422: 'invalid attribute',
  429: 'too many requests',
};

export interface ErrorObject {
  status: string;
  title: string;
  detail?: string;
  source?: { pointer?: string; parameter?: string };
}

export function errorObject(error: ApiError): ErrorObject {
  const object: ErrorObject = {
    status: String(error.status),
    title: error.options.title ?? TITLES[error.status] ?? 'error',
  };
  if (error.detail) object.detail = error.detail;
  if (error.options.pointer !== undefined) object.source = { pointer: error.options.pointer };
  else if (error.options.parameter !== undefined) object.source = { parameter: error.options.parameter };
  return object;
}

/** Every missing or hidden resource answers with exactly this body, so the two are indistinguishable. */
export const NOT_FOUND = new ApiError(404, 'not found');

interface ValidationIssue {
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Fastify schema failures on a body become 422s pointing at the attribute; on a query, 400s. */
function fromValidation(error: FastifyError): ApiError {
  const issue = (error.validation as ValidationIssue[] | undefined)?.[0];
  const missing = typeof issue?.params['missingProperty'] === 'string' ? `/${issue.params['missingProperty']}` : '';
  const pointer = `${issue?.instancePath ?? ''}${missing}`;
  const attribute = pointer.split('/').filter(Boolean).pop() ?? 'body';
  const detail = missing ? `${attribute} is required` : `${attribute} ${issue?.message ?? 'is invalid'}`;
  if (error.validationContext === 'body') return new ApiError(422, detail, { title: 'invalid attribute', pointer: pointer || '/data' });
  return new ApiError(400, detail, { title: 'bad request', parameter: attribute });
}

/** Maps anything thrown inside the platform tree to a JSON:API error document; never a 5xx for bad input. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.validation) return fromValidation(fastifyError);
  if (fastifyError.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new ApiError(415, 'Content-Type must be application/vnd.api+json');
  }
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new ApiError(413, 'the request body is larger than this endpoint accepts');
  // Unparseable or empty JSON: the request is malformed, not our failure.
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new ApiError(422, `malformed request body: ${fastifyError.message}`, { title: 'invalid body', pointer: '' });
  }
  if (isForeignKeyViolation(error))
    return new ApiError(
      409,
      'a resource this request refers to was removed while it ran (a reset or snapshot restore?); nothing was changed',
    );
  return new ApiError(500, 'internal error');
}

export function sendError(reply: FastifyReply, error: ApiError): FastifyReply {
  return reply
    .code(error.status)
    .header('content-type', MEDIA_TYPE)
    .send(Buffer.from(JSON.stringify({ errors: [error, ...(error.options.also ?? [])].map(errorObject) })));
}

/**
 * Requests the router refuses before any route runs, answered in JSON:API like everything else
 * under `/api/v2`: a path segment longer than any identifier names nothing (the usual 404), and a
 * path that is not valid percent-encoding is a 400.
 */
export function platformRouterError(error: FastifyError, reply: FastifyReply): FastifyReply {
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return sendError(reply, NOT_FOUND);
  return sendError(reply, new ApiError(400, 'the request path is not valid percent-encoding'));
}

export function platformErrorHandler(error: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const apiError = toApiError(error);
  // An ApiError is an answer the code chose (the SMTP server's 500/504 too); anything else is a bug worth logging.
  if (apiError.status >= 500 && !(error instanceof ApiError)) request.log.error({ err: error }, 'unexpected error in the platform API');
  return sendError(reply, apiError);
}
