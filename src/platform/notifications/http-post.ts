import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { lostToStaleConnection, type KeptAliveAgents } from '../../core/kept-alive.js';

export interface PostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** At most `keep` characters of the body. */
  body: string;
}

/**
 * One POST on a kept-alive connection to the receiver, given up after `timeoutMs` (the answer's
 * body included). A pooled connection that the receiver closed while it sat idle resets the
 * request before anything was answered: the POST then goes once more on a fresh connection, so
 * no notification is lost to it.
 */
export function postOnce(
  agents: KeptAliveAgents,
  url: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs: number,
  keep: number,
): Promise<PostAnswer> {
  const target = new URL(url);
  const signal = AbortSignal.timeout(timeoutMs);
  const attempt = (retried: boolean): Promise<PostAnswer> =>
    new Promise((resolve, reject) => {
      const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
      const outgoing = send(
        target,
        {
          method: 'POST',
          agent: agents.for(target),
          headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
          signal,
        },
        (incoming) => {
          let text = '';
          incoming.setEncoding('utf8');
          incoming.on('data', (chunk: string) => {
            if (text.length < keep) text += chunk;
          });
          incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: text.slice(0, keep) }));
          incoming.on('error', reject);
        },
      );
      outgoing.on('error', (error) => {
        if (!retried && lostToStaleConnection(outgoing, error)) resolve(attempt(true));
        else reject(error);
      });
      outgoing.end(body);
    });
  return attempt(false);
}
