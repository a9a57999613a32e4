/**
 * The one error type both trees throw for an expected failure. Each tree renders it in its own
 * wire format (JSON:API error objects for the platform, `{"errors":[…]}` for secrets), so a
 * service never needs to know which API called it.
 */
export interface ApiErrorOptions {
  /** Short summary; the platform's `title`. */
  title?: string;
  /** JSON pointer to the offending part of a request body (platform 422s). */
  pointer?: string;
  /** Query parameter at fault (platform 400s). */
  parameter?: string;
  /** Exact messages for the secrets API's `errors` array; `[]` is meaningful there. */
  messages?: string[];
  /** Further errors of the same answer (the platform lists them after this one, as the real service does for one attribute). */
  also?: ApiError[];
  /**
   * The status the real service answers this failure with when it differs (a 500 for a client's
   * mistake): used in the `upstream` dialect only; the default dialect keeps `status`.
   */
  upstreamStatus?: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
    readonly options: ApiErrorOptions = {},
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

export const badRequest = (detail: string, options?: ApiErrorOptions) => new ApiError(400, detail, options);
export const notFound = (detail = 'not found', options?: ApiErrorOptions) => new ApiError(404, detail, options);
export const forbidden = (detail = 'forbidden', options?: ApiErrorOptions) => new ApiError(403, detail, options);
export const conflict = (detail: string, options?: ApiErrorOptions) => new ApiError(409, detail, options);
export const unprocessable = (detail: string, pointer?: string) =>
  new ApiError(422, detail, pointer === undefined ? { title: 'invalid attribute' } : { title: 'invalid attribute', pointer });
