/**
 * A request the harness endpoints refuse. The control plane's error handler answers it as
 * `{"error": message}` with `statusCode`.
 */
export class HarnessError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** A 400 naming what is wrong with the request. */
export const invalid = (message: string): HarnessError => new HarnessError(400, message);
