import type { Dialect } from '../../core/dialect.js';
import { ApiError } from '../../core/errors.js';

/**
 * The secrets tree's error sentinels and the one helper that frames a message the way the real
 * service's Go multierror does. Clients compare these texts, so they are written once, here.
 */

/** Go's multierror text: `1 error occurred:\n\t* …\n\n`, or `N errors occurred:` with one bullet each. */
export function multierrorText(messages: readonly string[]): string {
  const header = messages.length === 1 ? '1 error occurred:' : `${messages.length} errors occurred:`;
  return `${header}\n${messages.map((message) => `\t* ${message}`).join('\n')}\n\n`;
}

/** An error whose one message the real service sends framed as a multierror. */
export const multierror = (status: number, message: string): ApiError =>
  new ApiError(status, message, { messages: [multierrorText([message])] });

/** The 403 a missing, unknown or expired token gets (a bare message, not a multierror). */
export const PERMISSION_DENIED = new ApiError(403, 'permission denied', { messages: ['permission denied'] });

/** The 403 a valid token gets when its policies refuse (the multierror text real clients see). */
export const POLICY_DENIED = multierror(403, 'permission denied');

/** A mount that has no path matching the request. */
export const UNSUPPORTED_PATH = multierror(404, 'unsupported path');

/** A path that exists but does not take the requested operation. */
export const UNSUPPORTED_OPERATION = multierror(405, 'unsupported operation');

/** An empty write: the real service fails it with a Go error, which clients see as a 500 with this text. */
export const missingDataFields = (): ApiError => multierror(500, 'missing data fields');

/** A failure the real service reports as an internal error (a 500 with the message as a multierror). */
export const internalError = (message: string): ApiError => multierror(500, message);

/**
 * A client's mistake that the real service answers with a 500 (its handler returned a Go error
 * instead of a user error): a 400 with the same text here, and that 500 in the `upstream` dialect,
 * where the real clients' own tests expect it. The README lists every such failure.
 */
export const upstream500 = (error: ApiError): ApiError =>
  new ApiError(error.status, error.detail, { ...error.options, upstreamStatus: 500 });

/** The error as the dialect shows it: the real service's status in `upstream`, when it differs. */
export function inDialect(error: ApiError, dialect: Dialect): ApiError {
  const status = error.options.upstreamStatus;
  return dialect === 'upstream' && status !== undefined && status !== error.status
    ? new ApiError(status, error.detail, error.options)
    : error;
}

/** For a catch block around work whose every client mistake is a real 500: rethrows 400s marked `upstream500`. */
export function rethrowAsUpstream500(error: unknown): never {
  throw error instanceof ApiError && error.status === 400 ? upstream500(error) : error;
}
