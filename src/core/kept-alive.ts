import { Agent as HttpAgent, type ClientRequest } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';

/** Idle connections kept per destination: a few deliveries or logins in flight at once, no more. */
const FREE_SOCKETS = 4;

/**
 * Kept-alive connections for the requests the server itself makes (notification deliveries,
 * secrets API logins), one pool per destination, so a run's requests do not each pay a TCP (and
 * TLS) handshake on both ends. Idle connections never keep the process alive (Node unrefs them).
 */
export class KeptAliveAgents {
  private readonly http = new HttpAgent({ keepAlive: true, maxFreeSockets: FREE_SOCKETS });
  // Made on the first HTTPS request: made with the object, it took node:https (and node:tls) into
  // every start-up (scripts/build.mjs, LAZY_MODULES).
  private https: HttpsAgent | undefined;

  for(url: URL): HttpAgent {
    return this.forProtocol(url.protocol === 'https:');
  }

  forProtocol(https: boolean): HttpAgent {
    return https ? (this.https ??= new HttpsAgent({ keepAlive: true, maxFreeSockets: FREE_SOCKETS })) : this.http;
  }

  /** Closes the idle connections (shutdown). */
  destroy(): void {
    this.http.destroy();
    this.https?.destroy();
  }
}

/**
 * Whether a request failed only because it went out on a pooled connection that the other side
 * closed while it sat idle: nothing reached the receiver, so sending it once more on a fresh
 * connection is safe (the case Node's documentation describes for `request.reusedSocket`).
 */
export function lostToStaleConnection(request: ClientRequest, error: unknown): boolean {
  return request.reusedSocket && (error as NodeJS.ErrnoException | undefined)?.code === 'ECONNRESET';
}
