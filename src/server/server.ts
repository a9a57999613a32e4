import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { Socket } from 'node:net';
import { Duplex, finished } from 'node:stream';
import { guardEarlyAnswer } from './early-answer.js';
import { answerPlainHttp } from './plain-http-on-tls.js';
import { DEFAULT_HOLD_LIMIT, ListMethodRewriter } from './list-method.js';

/**
 * How long a connection being closed after its last answer keeps reading (and dropping) what
 * the client still sends. Closing a socket with unread input makes the kernel send a reset,
 * which can reach the client before it has read the answer; lingering lets it read the answer.
 */
export const LINGER_MS = 2_000;

/** Every accepted TCP connection of each server, for {@link destroyAllConnections}. */
const connectionsOf = new WeakMap<Server, Set<Socket>>();

/**
 * Ends every connection at once, whatever state it is in (idle, mid-request, half-closed,
 * lingering): what a shutdown does once its grace period is over.
 */
export function destroyAllConnections(server: Server): void {
  for (const socket of connectionsOf.get(server) ?? []) socket.destroy();
}

/**
 * The HTTP server Fastify runs on: a plain Node server, except that every accepted connection
 * is read through a {@link ListMethodRewriter}, so requests sent with the `LIST` method (which
 * Node's parser refuses) reach the routes as `GET` + the list marker header.
 *
 * Fastify passes all of its options to a server factory and then leaves the server alone, so
 * the timeouts it would otherwise set on a server it creates itself are applied here.
 */
export function createServerWithListMethod(handler: RequestListener, fastifyOptions: Record<string, unknown> = {}): Server {
  const httpOptions = (fastifyOptions.http ?? {}) as ServerOptions;
  const guarded: RequestListener = (request, response) => {
    guardEarlyAnswer(request, response);
    handler(request, response);
  };
  // HTTPS (UNDERSTUDY_TLS): the same server on TLS; requests are read from the decrypted stream.
  const tlsOptions = fastifyOptions.https as { key: string; cert: string } | null | undefined;
  let server: Server;
  if (tlsOptions) {
    const httpsServer = createHttpsServer({ ...httpOptions, ...tlsOptions }, guarded);
    answerPlainHttp(httpsServer);
    server = httpsServer;
  } else {
    server = createServer(httpOptions, guarded);
  }
  const number = (name: string) => (typeof fastifyOptions[name] === 'number' ? fastifyOptions[name] : undefined);
  server.keepAliveTimeout = number('keepAliveTimeout') ?? server.keepAliveTimeout;
  server.requestTimeout = number('requestTimeout') ?? server.requestTimeout;
  server.setTimeout(number('connectionTimeout') ?? 0);
  const maxRequestsPerSocket = number('maxRequestsPerSocket');
  if (maxRequestsPerSocket) server.maxRequestsPerSocket = maxRequestsPerSocket;
  acceptListMethod(
    server,
    Math.max(DEFAULT_HOLD_LIMIT, 2 * (httpOptions.maxHeaderSize ?? 0)),
    tlsOptions ? 'secureConnection' : 'connection',
  );
  return server;
}

/**
 * Puts a {@link ListMethodRewriter} between each accepted TCP socket and Node's HTTP parser. An
 * `http.Server` handles connections in its own 'connection' listener (an `https.Server`, in
 * 'secureConnection', with the decrypted TLS socket); it is taken out and called here, and then
 * the parser's input is rerouted through the rewriter (see {@link readThroughRewriter}).
 */
function acceptListMethod(server: Server, holdLimit: number, event: 'connection' | 'secureConnection'): void {
  const listeners = server.listeners(event);
  const [handleConnection] = listeners;
  if (listeners.length !== 1 || handleConnection === undefined) {
    throw new Error(`expected the HTTP server's own connection listener only, found ${listeners.length} listeners`);
  }
  server.removeListener(event, handleConnection as (socket: Socket) => void);
  const connections = new Set<Socket>();
  connectionsOf.set(server, connections);
  if (event === 'secureConnection') {
    // Every TCP connection counts, including one still in its handshake.
    server.on('connection', (socket: Socket) => {
      connections.add(socket);
      socket.once('close', () => connections.delete(socket));
    });
  }
  server.on(event, (socket: Duplex) => {
    // Only TCP sockets are rewritten; a stream someone emits as a connection is served as it is.
    if (!(socket instanceof Socket)) {
      handleConnection.call(server, socket);
      return;
    }
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
    const before = { data: socket.listeners('data'), end: socket.listeners('end'), close: socket.listeners('close') };
    handleConnection.call(server, socket);
    readThroughRewriter(socket, holdLimit, addedListener(socket, 'data', before.data), addedListener(socket, 'end', before.end));
    closeRequestsOnDestroy(socket, addedListener(socket, 'close', before.close));
  });
}

type Listener = (this: Socket, ...args: unknown[]) => void;

/** The one listener for `event` Node's HTTP server added to `socket` (the socket has its own 'end' one). */
function addedListener(socket: Socket, event: 'data' | 'end' | 'close', before: unknown[]): Listener {
  const added = socket.listeners(event).filter((listener) => !before.includes(listener));
  if (added.length !== 1) throw new Error(`expected the HTTP server to add one '${event}' listener, found ${added.length}`);
  return added[0] as Listener;
}

/**
 * Makes Node's HTTP parser read `socket` through a {@link ListMethodRewriter}, on the socket itself
 * (no stream in between: responses are written straight to it, and reads cost one 'data' event).
 *
 * Node's server parses a TCP socket natively until someone listens for its 'data'; then it reads it
 * through 'data' events, with its own listener. That listener (and its 'end' listener, which tells
 * the parser the input is over) is taken out and called with what the rewriter passes on instead.
 * The parser must not be fed while the server has paused the socket (it asserts so: a paused
 * socket means it is not keeping up with its answers), so bytes the rewriter passes on then wait
 * until the socket resumes, in order, and so does the end of the input.
 */
function readThroughRewriter(socket: Socket, holdLimit: number, parse: Listener, finish: Listener): void {
  socket.removeListener('data', parse);
  socket.removeListener('end', finish);
  const waiting: Buffer[] = [];
  let ended = false;
  let finished = false;
  /** Closing after the last answer: what the client still sends is read and dropped. */
  let discarding = false;
  // Nothing reaches the parser once it is done with this connection: after a parse error (the
  // server destroys the socket; the parser then goes back to a pool other connections draw from)
  // or an Upgrade or CONNECT (it lets the socket go: `parser` becomes null). Natively the rest
  // of the chunk is not parsed either.
  const parserGone = () => socket.destroyed || (socket as Socket & { parser?: unknown }).parser == null;
  const flush = () => {
    while (waiting.length > 0 && !socket.isPaused()) {
      const bytes = waiting.shift() as Buffer;
      if (!discarding && !parserGone()) parse.call(socket, bytes);
    }
    if (ended && !finished && waiting.length === 0) {
      finished = true;
      if (!parserGone()) finish.call(socket);
    }
  };
  const rewriter = new ListMethodRewriter((bytes) => {
    if (waiting.length > 0 || socket.isPaused()) waiting.push(bytes);
    else if (!discarding && !parserGone()) parse.call(socket, bytes);
  }, holdLimit);
  socket.on('resume', flush);
  socket.on('end', () => {
    if (!discarding) rewriter.end();
    ended = true;
    flush();
  });
  // This listener is what switches Node's parser from reading the socket natively to 'data' events.
  socket.on('data', (chunk: Buffer) => {
    if (discarding) return;
    if (waiting.length > 0) flush();
    rewriter.write(chunk);
  });
  socket.destroySoon = () =>
    lingerThenDestroy(socket, () => {
      discarding = true;
      waiting.length = 0;
    });
}

/**
 * Lets Node's HTTP server know a connection is over as soon as it is destroyed (on the next tick),
 * rather than when the socket's handle has finished closing: the requests it has not answered are
 * aborted before any of them completes. That is what the server saw through the stream this layer
 * used to put in front of the socket (a stream emits 'close' on the next tick), so a request whose
 * connection a parse error ends is not handled half-way, and the framing fuzz test (which compares
 * what each server sees) holds this layer to it.
 */
function closeRequestsOnDestroy(socket: Socket, onClose: Listener): void {
  socket.removeListener('close', onClose);
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    // After an Upgrade or CONNECT the server has let the connection go (and stopped listening to it).
    if ((socket as Socket & { parser?: unknown }).parser != null) onClose.call(socket);
  };
  // A connection the peer or the kernel ends closes without anyone calling destroy.
  socket.once('close', close);
  const destroy = socket.destroy.bind(socket);
  socket.destroy = (error?: Error) => {
    destroy(error);
    process.nextTick(close);
    return socket;
  };
}

/**
 * What Node's HTTP server calls after an answer that closes the connection. Like
 * `net.Socket#destroySoon` it ends the writing side once the answer is flushed, and it also
 * stops parsing: the rest of the input (an unread upload, pipelined requests) is dropped, and
 * the connection is destroyed when the client closes its side or {@link LINGER_MS} after the
 * answer left, whichever comes first. Without it the server would wait for the client forever;
 * with Node's own, unread input would make the kernel send a reset that can overtake the answer.
 */
function lingerThenDestroy(socket: Socket, stopParsing: () => void): void {
  stopParsing();
  socket.resume();
  socket.end();
  finished(socket, { readable: false }, () => {
    setTimeout(() => socket.destroy(), LINGER_MS).unref();
  });
}
