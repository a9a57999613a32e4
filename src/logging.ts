import type { DestinationStream } from 'pino';
import type { Config } from './config.js';

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
  return parts.filter((part) => part !== undefined && part !== null).join(' ');
}

/**
 * Where the process writes its logs: stderr, as JSON lines, or through pino-pretty as readable
 * text when asked (`UNDERSTUDY_LOG_FORMAT=pretty`) or, with `auto`, when stderr is a terminal.
 * Redaction happens in the logger before either, so both forms hide the same secrets. The
 * prettifier is loaded only when used, so JSON starts cost nothing for it.
 */
export async function logDestination(config: Config, stderr: NodeJS.WriteStream = process.stderr): Promise<DestinationStream> {
  const pretty = config.logFormat === 'pretty' || (config.logFormat === 'auto' && stderr.isTTY === true);
  if (!pretty) return stderr;
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
