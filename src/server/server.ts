import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { Socket } from 'node:net';
import { Duplex, finished } from 'node:stream';
import { guardEarlyAnswer } from './early-answer.js';
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
 * is read through a {@link ListMethodSocket}, so requests sent with the `LIST` method (which
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
  const server: Server = tlsOptions ? createHttpsServer({ ...httpOptions, ...tlsOptions }, guarded) : createServer(httpOptions, guarded);
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
 * Puts a {@link ListMethodSocket} between each accepted TCP socket and Node's HTTP machinery.
 * An `http.Server` handles connections in its own 'connection' listener, which accepts any
 * Duplex; it is taken out and called with the wrapper instead of the socket. An `https.Server`
 * hands the HTTP machinery each TLS socket (decrypted bytes) in its 'secureConnection' listener
 * instead, so that one is replaced there.
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
    // Only TCP sockets are wrapped; a stream someone emits as a connection is served as it is.
    if (!(socket instanceof Socket)) {
      handleConnection.call(server, socket);
      return;
    }
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
    handleConnection.call(server, new ListMethodSocket(socket, holdLimit));
  });
}

/**
 * A TCP socket as Node's HTTP server sees it: incoming bytes pass through a
 * {@link ListMethodRewriter}, outgoing bytes go to the socket unchanged, and the socket
 * methods and properties the HTTP server, Fastify and the logger use are forwarded.
 *
 * Because it is not a `net.Socket`, Node's parser reads it through 'data' events instead of
 * consuming the socket's handle natively; that is what lets the rewriter see the bytes first.
 */
export class ListMethodSocket extends Duplex {
  private readonly rewriter: ListMethodRewriter;
  /** The socket was paused because this stream's read buffer is full. */
  private socketPaused = false;
  /** The callback of a write waiting for the socket to drain. */
  private waitingForDrain: (() => void) | undefined;
  /** Closing after the last answer: what the client still sends is read and dropped. */
  private discarding = false;

  constructor(
    /** The accepted TCP connection. */
    private readonly tcp: Socket,
    holdLimit: number = DEFAULT_HOLD_LIMIT,
  ) {
    super({
      allowHalfOpen: true,
      // Strings (the HTTP head) go to the socket as strings; it encodes them itself.
      decodeStrings: false,
      writableHighWaterMark: tcp.writableHighWaterMark,
      readableHighWaterMark: tcp.readableHighWaterMark,
    });
    this.rewriter = new ListMethodRewriter((bytes) => this.pushFromSocket(bytes), holdLimit);
    tcp.on('data', (chunk: Buffer) => {
      if (!this.discarding) this.rewriter.write(chunk);
    });
    tcp.on('end', () => {
      if (!this.discarding) this.rewriter.end();
      this.push(null);
    });
    tcp.on('drain', () => this.onSocketDrain());
    tcp.on('timeout', () => this.emit('timeout'));
    tcp.on('error', (error) => this.destroy(error));
    tcp.on('close', () => this.destroy());
  }

  // ---- incoming bytes ----

  private pushFromSocket(bytes: Buffer): void {
    if (!this.push(bytes) && !this.socketPaused) {
      this.socketPaused = true;
      this.tcp.pause();
    }
  }

  override _read(): void {
    if (this.socketPaused) {
      this.socketPaused = false;
      this.tcp.resume();
    }
  }

  // ---- outgoing bytes ----

  override _write(chunk: Buffer | string, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.afterWrite(this.tcp.write(chunk, encoding), callback);
  }

  override _writev(chunks: { chunk: Buffer | string; encoding: BufferEncoding }[], callback: (error?: Error | null) => void): void {
    // Corked writes (a response head and body) stay one write on the socket.
    this.tcp.cork();
    let accepted = true;
    for (const { chunk, encoding } of chunks) accepted = this.tcp.write(chunk, encoding) && accepted;
    this.tcp.uncork();
    this.afterWrite(accepted, callback);
  }

  /** Complete a write at once while the socket takes more; else when it drains (back-pressure). */
  private afterWrite(accepted: boolean, callback: () => void): void {
    if (accepted) callback();
    else this.waitingForDrain = callback;
  }

  private onSocketDrain(): void {
    const callback = this.waitingForDrain;
    this.waitingForDrain = undefined;
    callback?.();
  }

  override _final(callback: (error?: Error | null) => void): void {
    // Finish only once the socket has flushed, so a destroy after 'finish' cannot cut a response
    // short. A socket that fails instead reports through its own 'error'/'close' (see constructor).
    if (this.tcp.destroyed) return callback();
    finished(this.tcp, { readable: false }, () => callback());
    this.tcp.end();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.tcp.destroy();
    callback(error);
  }

  // ---- the net.Socket surface used by Node's HTTP server, Fastify and the logger ----

  /**
   * Node's HTTP server calls this after an answer that closes the connection. Like
   * `net.Socket#destroySoon` it ends the writing side once the answer is flushed, and it also
   * stops parsing: the rest of the input (an unread upload, pipelined requests) is dropped, and
   * the connection is destroyed when the client closes its side or {@link LINGER_MS} after the
   * answer left, whichever comes first. Without it the server would wait for the client forever.
   */
  destroySoon(): void {
    this.discarding = true;
    this.tcp.resume();
    this.end();
    finished(this.tcp, { readable: false }, () => {
      setTimeout(() => this.destroy(), LINGER_MS).unref();
    });
  }

  setTimeout(timeout: number, callback?: () => void): this {
    this.tcp.setTimeout(timeout);
    if (callback) {
      if (timeout === 0) this.removeListener('timeout', callback);
      else this.once('timeout', callback);
    }
    return this;
  }

  setNoDelay(noDelay?: boolean): this {
    this.tcp.setNoDelay(noDelay);
    return this;
  }

  setKeepAlive(enable?: boolean, initialDelay?: number): this {
    this.tcp.setKeepAlive(enable, initialDelay);
    return this;
  }

  ref(): this {
    this.tcp.ref();
    return this;
  }

  unref(): this {
    this.tcp.unref();
    return this;
  }

  address(): ReturnType<Socket['address']> {
    return this.tcp.address();
  }

  get timeout(): number | undefined {
    return this.tcp.timeout;
  }

  /** Fastify reads this for `request.protocol` (https URLs in links and discovery under TLS). */
  get encrypted(): boolean | undefined {
    return (this.tcp as Socket & { encrypted?: boolean }).encrypted;
  }

  get remoteAddress(): string | undefined {
    return this.tcp.remoteAddress;
  }

  get remotePort(): number | undefined {
    return this.tcp.remotePort;
  }

  get remoteFamily(): string | undefined {
    return this.tcp.remoteFamily;
  }

  get localAddress(): string | undefined {
    return this.tcp.localAddress;
  }

  get localPort(): number | undefined {
    return this.tcp.localPort;
  }

  get localFamily(): string | undefined {
    return this.tcp.localFamily;
  }

  get bytesRead(): number {
    return this.tcp.bytesRead;
  }

  get bytesWritten(): number {
    return this.tcp.bytesWritten;
  }

  get connecting(): boolean {
    return this.tcp.connecting;
  }

  get pending(): boolean {
    return this.tcp.pending;
  }

  get readyState(): string {
    return this.tcp.readyState;
  }
}
