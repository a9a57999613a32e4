import { X509Certificate } from 'node:crypto';
import { request as httpRequest, STATUS_CODES } from 'node:http';
import { request as httpsRequest } from 'node:https';

/**
 * Fetching discovery documents and key sets over HTTP(S), as the real method's HTTP client does:
 * a CA PEM replaces the system roots when given, every fetch is bounded in time and size, and a
 * failure is an error whose text names the URL (never a crash). Plain `http://` is allowed, as for
 * real. The server may fetch from itself: the request is asynchronous and holds no transaction.
 */

const TIMEOUT_MS = 10_000;
const MAX_BODY_BYTES = 1 << 20;

export class RemoteError extends Error {}

export interface RemoteResponse {
  status: number;
  /** `404 Not Found`, as Go prints a response status. */
  statusLine: string;
  contentType: string;
  body: string;
}

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;

/** The certificates of a CA PEM; at least one must parse, as Go's AppendCertsFromPEM requires. */
export function parseCaPem(caPem: string): string[] {
  const blocks = (caPem.match(CERTIFICATE_BLOCK) ?? []).filter((block) => {
    try {
      new X509Certificate(block);
      return true;
    } catch {
      return false;
    }
  });
  if (blocks.length === 0) throw new RemoteError('could not parse CA PEM value successfully');
  return blocks;
}

/** A request other than a plain GET (the OIDC flow's token exchange posts a form). */
export interface RemoteRequest {
  method: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
}

export function fetchRemote(url: string, caPem: string, options: RemoteRequest = { method: 'GET' }): Promise<RemoteResponse> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(new RemoteError(`parse ${JSON.stringify(url)}: invalid URL`));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return Promise.reject(
      new RemoteError(`Get ${JSON.stringify(url)}: unsupported protocol scheme ${JSON.stringify(target.protocol.slice(0, -1))}`),
    );
  }
  let ca: string[] | undefined;
  try {
    ca = caPem === '' ? undefined : parseCaPem(caPem);
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new RemoteError(String(error)));
  }
  const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const verb = options.method === 'GET' ? 'Get' : 'Post';
    const fail = (message: string) => reject(new RemoteError(`${verb} ${JSON.stringify(url)}: ${message}`));
    const headers = { accept: 'application/json', ...options.headers };
    const request = send(target, { method: options.method, headers, timeout: TIMEOUT_MS, ...(ca ? { ca } : {}) }, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY_BYTES) {
          request.destroy();
          fail('response body too large');
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', (error) => fail(error.message));
      response.on('end', () => {
        const status = response.statusCode ?? 0;
        resolve({
          status,
          statusLine: `${status} ${STATUS_CODES[status] ?? ''}`.trim(),
          contentType: String(response.headers['content-type'] ?? ''),
          body: Buffer.concat(chunks).toString('utf8'),
        });
      });
    });
    request.on('timeout', () => {
      request.destroy();
      fail('context deadline exceeded (Client.Timeout exceeded while awaiting headers)');
    });
    request.on('error', (error) => fail(error.message));
    request.end(options.body);
  });
}
