import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface PostAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** At most `keep` characters of the body. */
  body: string;
}

/**
 * One POST on a connection of its own, closed afterwards, and given up after `timeoutMs` (the
 * answer's body included). A fresh connection per delivery: a pooled keep-alive connection that
 * the receiver closes while it sits idle would lose the next notification to a reset.
 */
export function postOnce(url: string, body: string, headers: Record<string, string>, timeoutMs: number, keep: number): Promise<PostAnswer> {
  const target = new URL(url);
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const outgoing = send(
      target,
      {
        method: 'POST',
        agent: false,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)), connection: 'close' },
        signal: AbortSignal.timeout(timeoutMs),
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
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
