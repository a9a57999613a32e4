import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * A body this small, not yet read when the answer starts, is read and dropped so the connection
 * stays usable; anything larger (or of unknown length) closes the connection instead.
 */
export const DRAIN_LIMIT = 64 * 1024;
/** How long a small unread body may take to arrive after its answer before the connection is cut. */
export const DRAIN_MS = 5_000;

/**
 * Keeps an answer sent before its request body was read in full (a rejected upload, a refusal
 * from a hook) from wedging the connection. Node reads an untouched body off the wire itself,
 * but not one a route started to read and then abandoned or destroyed: the socket stays paused
 * with the rest of the body unread, the next request on it is never parsed, and a
 * `Connection: close` answer leaves the socket half-closed for good.
 *
 * So, for every request: when the answer's head is written while body bytes are still due,
 * either the body is small enough to drain (it is read and dropped after the answer, within
 * {@link DRAIN_MS}) or the answer says `Connection: close` and Node closes the socket after it
 * (see `lingerThenDestroy` in server.ts, which drops whatever the client still sends).
 */
export function guardEarlyAnswer(request: IncomingMessage, response: ServerResponse): void {
  const socket = request.socket;
  // Every head goes through writeHead (an implicit head too), so the decision is taken once, there.
  const writeHead = response.writeHead.bind(response) as (...args: unknown[]) => ServerResponse;
  response.writeHead = (...args: unknown[]) => {
    if (bodyStillDue(request)) {
      if (drainable(request)) response.once('finish', () => drain(request, socket));
      else response.setHeader('connection', 'close');
    }
    return writeHead(...args);
  };
}

function bodyStillDue(request: IncomingMessage): boolean {
  if (request.complete) return false;
  const length = request.headers['content-length'];
  return request.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

function drainable(request: IncomingMessage): boolean {
  const length = Number(request.headers['content-length']);
  return !request.destroyed && request.headers['transfer-encoding'] === undefined && length <= DRAIN_LIMIT;
}

/** Reads and drops the rest of a small body; a client that does not send it loses the connection. */
function drain(request: IncomingMessage, socket: Duplex): void {
  if (request.complete) return;
  const timer = setTimeout(() => socket.destroy(), DRAIN_MS);
  timer.unref();
  request.once('end', () => clearTimeout(timer));
  request.unpipe();
  request.resume();
}
