import type { Server as TlsServer, TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';

/**
 * What the secrets service's Go server writes when a client speaks plain HTTP to its HTTPS port:
 * an HTTP/1.0 status line, no headers, and the sentence, after which it closes the connection.
 */
export const PLAIN_HTTP_ANSWER = 'HTTP/1.0 400 Bad Request\r\n\r\nClient sent an HTTP request to an HTTPS server.\n';

/**
 * Answers plain HTTP sent to the HTTPS port as the real server does, instead of dropping the
 * connection. OpenSSL recognises the request line itself (`http request`) and the TLS handshake
 * fails with that code; the answer is then written to the TCP socket under the failed TLS socket,
 * which nothing has encrypted anything on yet. Node keeps that socket as `_parent` (not public
 * API, hence the guard: without it the connection is dropped, as before).
 */
export function answerPlainHttp(server: TlsServer): void {
  server.on('tlsClientError', (error: NodeJS.ErrnoException, tlsSocket: TLSSocket) => {
    if (error.code !== 'ERR_SSL_HTTP_REQUEST') return;
    const raw = (tlsSocket as TLSSocket & { _parent?: unknown })._parent;
    if (!isWritableSocket(raw)) return;
    raw.end(PLAIN_HTTP_ANSWER);
  });
}

function isWritableSocket(value: unknown): value is Socket {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Socket).end === 'function' &&
    !(value as Socket).destroyed &&
    (value as Socket).writable
  );
}
