/**
 * Rows measured over HTTPS with a client certificate (`auth/cert` logins): the request carries
 * the TLS material, autocannon presents it, and the preflight sends it with node:https (the
 * global fetch can neither trust a private CA nor present a client certificate).
 */
import { request as httpsRequest } from 'node:https';
import type { BenchRequest } from './scenario.js';

/** autocannon's options for a request with TLS material; none for a plain one. */
export function tlsOptionsOf(request: BenchRequest): { tlsOptions?: { cert: string; key: string } } {
  return request.tls ? { tlsOptions: { cert: request.tls.cert, key: request.tls.key } } : {};
}

/** One HTTPS request with the server's CA and, when given, a client certificate: status and body. */
export function httpsCall(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string | Buffer; ca: string; cert?: string; key?: string },
): Promise<{ status: number; text: string }> {
  return new Promise((done, fail) => {
    const call = httpsRequest(
      url,
      {
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        ca: options.ca,
        cert: options.cert,
        key: options.key,
        agent: false,
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
        response.on('end', () => done({ status: response.statusCode ?? 0, text }));
      },
    );
    call.on('error', fail);
    call.end(options.body);
  });
}

/** The preflight of a TLS row: its one request, refused on a 4xx/5xx as the plain preflight does. */
export async function preflightOverTls(baseUrl: string, request: BenchRequest): Promise<string | null> {
  if (!request.tls) return null;
  const { status } = await httpsCall(baseUrl + request.path, { ...request, ...request.tls });
  return status >= 400 ? `preflight answered ${status}` : null;
}
