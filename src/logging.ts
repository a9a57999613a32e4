import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import { destination, type Bindings, type ChildLoggerOptions, type DestinationStream, type Level, type LogFn, type Logger } from 'pino';
import type { Config } from './config.js';
import { textOf } from './core/json.js';
import { redactUrl } from './core/redact.js';
import { clientMethod } from './server/list-method.js';
import { sentMethod } from './server/head-requests.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Path parameters that are credentials (self-authorizing links, webhook secrets): never logged. */
    secretParams?: readonly string[];
    /** The request and response bodies are secrets (state): the request journal keeps neither. */
    secretBodies?: boolean;
  }
}

/**
 * Fastify's default `req` log serializer with the method the client sent, so the "incoming
 * request" line of a `LIST` reads `LIST` rather than the rewritten `GET`. Meant for the logger
 * option `serializers: { req: requestLogSerializer }`.
 */
export function requestLogSerializer(request: FastifyRequest): Record<string, unknown> {
  return {
    // Logged before the first hook, while a HEAD request is still routed as GET (server/head-requests.ts).
    method: clientMethod({ method: sentMethod(request), headers: request.headers }),
    url: redactUrl(request.url, { pattern: request.routeOptions?.url, secretParams: request.routeOptions?.config?.secretParams }),
    version: request.headers['accept-version'],
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}

interface RequestLog {
  msg?: unknown;
  reqId?: unknown;
  req?: { method?: unknown; url?: unknown };
  res?: { statusCode?: unknown };
  responseTime?: unknown;
}

/** One line per request event: the request's method and URL (already redacted), or its answer and time. */
function requestLine(log: Record<string, unknown>, messageKey: string): string {
  const { reqId, req, res, responseTime } = log as RequestLog;
  const parts = [reqId, log[messageKey]];
  if (req?.method !== undefined) parts.push(req.method, req.url);
  if (res?.statusCode !== undefined)
    parts.push(res.statusCode, typeof responseTime === 'number' ? `in ${responseTime.toFixed(1)} ms` : undefined);
  return parts
    .filter((part) => part !== undefined && part !== null)
    .map((part) => textOf(part))
    .join(' ');
}

/**
 * Where the process writes its logs: stderr, as JSON lines, or through pino-pretty as readable
 * text when asked (`UNDERSTUDY_LOG_FORMAT=pretty`) or, with `auto`, when stderr is a terminal.
 * Redaction happens in the logger before either, so both forms hide the same secrets. The
 * prettifier is loaded only when used, so JSON starts cost nothing for it.
 *
 * JSON lines to the process's own stderr go through an asynchronous destination: a synchronous
 * write per line cost a busy server about a quarter of a point read. pino flushes it
 * synchronously when the process exits, and `flushLogs` does so on shutdown, so no line is lost.
 */
export async function logDestination(config: Config, stderr: NodeJS.WriteStream = process.stderr): Promise<DestinationStream> {
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && stderr.isTTY === true);
  if (!pretty) return stderr === process.stderr ? destination({ dest: process.stderr.fd, sync: false }) : stderr;
  const { default: prettyStream } = await import('pino-pretty');
  return prettyStream({
    destination: stderr,
    colorize: stderr.isTTY === true,
    translateTime: 'SYS:HH:MM:ss.l',
    messageFormat: requestLine,
    ignore: 'pid,hostname,reqId,req,res,responseTime',
    sync: true,
  });
}

/** Writes out what an asynchronous destination still holds (a no-op for a plain stream). */
export function flushLogs(stream: DestinationStream | false): void {
  const flushSync = stream === false ? undefined : (stream as { flushSync?: () => void }).flushSync;
  if (typeof flushSync !== 'function') return;
  try {
    flushSync.call(stream);
  } catch {
    // Nothing was written yet (the destination is still opening) or stderr is gone: nothing to save.
  }
}

/**
 * Sends the process's warnings (`process.emitWarning`: Node's deprecations, a dependency's notice
 * such as the cloud SDK's Node-version warning) to the log as one `warn` line each, instead of
 * Node printing them as raw, possibly multi-line text among the JSON lines on stderr. Only the
 * server's own process does this; the in-process API leaves its host's warnings alone.
 */
export function routeProcessWarnings(log: { warn(fields: Record<string, unknown>, message: string): void }): void {
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) => {
    const message = warning.message.replace(/\s*\n\s*/g, ' ').trim();
    log.warn({ warning: warning.name, ...(warning.code ? { code: warning.code } : {}) }, message);
  });
}

/**
 * A request's logger (`request.log`) that makes its pino child, with the request's bindings,
 * only when a line is written at an enabled level. Fastify makes one per request; at the default
 * level most requests write nothing, and building the child (bindings serialized, methods
 * rebound) was a measurable share of a point read. Lines, when written, are the same.
 */
class RequestLogger implements FastifyBaseLogger {
  private made: Logger | undefined;

  declare fatal: LogFn;
  declare error: LogFn;
  declare warn: LogFn;
  declare info: LogFn;
  declare debug: LogFn;
  declare trace: LogFn;
  declare silent: LogFn;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: Bindings,
  ) {}

  get level(): string {
    return this.made?.level ?? this.parent.level;
  }

  set level(level: string) {
    this.real().level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real().child(bindings, options);
  }

  real(): Logger {
    this.made ??= this.parent.child(this.bindings);
    return this.made;
  }

  /** Whether a line at `level` would be written (the child's own level once it exists). */
  enabled(level: Level): boolean {
    return this.made === undefined ? this.parent.isLevelEnabled(level) : this.made.isLevelEnabled(level);
  }
}

for (const level of ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const) {
  RequestLogger.prototype[level] = function write(this: RequestLogger, ...args: Parameters<LogFn>) {
    if (this.enabled(level)) this.real()[level](...args);
  };
}
RequestLogger.prototype.silent = function silent() {};

/**
 * Fastify's `childLoggerFactory`: a {@link RequestLogger}, unless the route asks for a level or
 * serializers of its own (then pino's child, as Fastify would make it).
 */
export function requestChildLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  if (options.level !== undefined || options.serializers !== undefined) return logger.child(bindings, options);
  return new RequestLogger(logger as Logger, bindings);
}
