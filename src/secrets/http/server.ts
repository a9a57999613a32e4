import { createServer, type RequestListener, type Server } from 'node:http';

/**
 * The HTTP server Fastify runs on. It will accept the `LIST` method (see list-method.ts); for
 * now it is a plain Node server.
 */
export function createServerWithListMethod(handler: RequestListener): Server {
  return createServer(handler);
}
