/**
 * The platform's side of a secrets API login, over HTTP(S) like any remote client: the platform
 * and the secrets API talk as strangers (its own `/v1` is reached through the network, exactly as
 * a real server at `TFC_VAULT_ADDR` would be).
 */
import { request as httpRequest, type RequestOptions } from 'node:http';
import { request as httpsRequest, type RequestOptions as HttpsRequestOptions } from 'node:https';
import { urlToHttpOptions } from 'node:url';
import { lostToStaleConnection, type KeptAliveAgents } from '../../core/kept-alive.js';
import type { VaultLogin } from './settings.js';

/** The agent's default for `TFC_VAULT_CLIENT_TIMEOUT`. */
const TIMEOUT_MS = 60_000;
const MAX_BODY = 1024 * 1024;

interface Answer {
  status: number;
  body: unknown;
}

export class LoginFailed extends Error {}

/** Where a request goes, as `http.request` takes it: parsed once per URL, not once per request. */
interface RequestTarget {
  options: ReturnType<typeof urlToHttpOptions>;
  https: boolean;
}

/** Few distinct URLs exist (each login address gives two); the bound only guards against churn. */
const TARGETS_KEPT = 256;
const targets = new Map<string, RequestTarget>();

function targetOf(href: string): RequestTarget {
  let target = targets.get(href);
  if (target === undefined) {
    const url = new URL(href);
    target = { options: urlToHttpOptions(url), https: url.protocol === 'https:' };
    if (targets.size >= TARGETS_KEPT) targets.clear();
    targets.set(href, target);
  }
  return target;
}

/** What Node's own `signal` option destroys an aborted request with (its AbortError's text and code). */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error('The operation was aborted', { cause: signal.reason }), { name: 'AbortError', code: 'ABORT_ERR' });
}

/** One request on a kept-alive connection; sent once more on a fresh one when the pooled connection had gone stale. */
function call(
  agents: KeptAliveAgents,
  login: Pick<VaultLogin, 'address' | 'namespace' | 'caCert'>,
  method: string,
  path: string,
  token: string | undefined,
  body: unknown,
  signal?: AbortSignal,
  retried = false,
): Promise<Answer> {
  const target = targetOf(`${login.address}/v1/${path}`);
  const payload = body === undefined ? undefined : JSON.stringify(body);
  // Built in place, in the order the headers go out: spreading optional parts into a literal cost
  // more than the rest of the header work.
  const headers: Record<string, string | number> = { accept: 'application/json' };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = Buffer.byteLength(payload);
  }
  if (login.namespace) headers['X-Vault-Namespace'] = login.namespace;
  if (token !== undefined) headers['X-Vault-Token'] = token;
  return new Promise((resolve, reject) => {
    const options: RequestOptions = { ...target.options, method, agent: agents.forProtocol(target.https), headers, timeout: TIMEOUT_MS };
    if (target.https && login.caCert) (options as HttpsRequestOptions).ca = login.caCert;
    const req = (target.https ? httpsRequest : httpRequest)(options, (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BODY) return void req.destroy(new Error('the answer is too large'));
        chunks.push(chunk);
      });
      response.on('end', () => {
        const text = (chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = text === '' ? null : JSON.parse(text);
        } catch {
          // Not JSON (a proxy's page): kept as text for the error line.
        }
        resolve({ status: response.statusCode ?? 0, body: parsed });
      });
      response.on('error', reject);
    });
    if (signal) {
      // A listener of our own rather than the `signal` option, whose stream plumbing (an
      // end-of-stream watcher per request) cost more than the request's headers.
      const abort = () => req.destroy(abortError(signal));
      if (signal.aborted) abort();
      else {
        signal.addEventListener('abort', abort, { once: true });
        req.once('close', () => signal.removeEventListener('abort', abort));
      }
    }
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS / 1000}s`)));
    req.on('error', (error) => {
      if (!retried && lostToStaleConnection(req, error)) resolve(call(agents, login, method, path, token, body, signal, true));
      else reject(error);
    });
    req.end(payload);
  });
}

/** The secrets API's own words for a failure: its `errors` array, else the body as text. */
function errorText(answer: Answer): string {
  const errors = (answer.body as { errors?: unknown } | null)?.errors;
  if (Array.isArray(errors) && errors.length > 0) return errors.map(String).join('; ');
  return typeof answer.body === 'string' && answer.body !== '' ? answer.body.slice(0, 500) : `HTTP ${answer.status}`;
}

export interface VaultSession {
  token: string;
  /** Revokes the token (`auth/token/revoke-self`); a failure is reported, never thrown. */
  revoke(): Promise<string | null>;
}

/** `POST <addr>/v1/auth/<path>/login` with `{role, jwt}`; the token, or LoginFailed with the API's text. */
export async function loginWithJwt(agents: KeptAliveAgents, login: VaultLogin, jwt: string, signal?: AbortSignal): Promise<VaultSession> {
  const where = `${login.address}/v1/auth/${login.authPath}/login`;
  let answer: Answer;
  try {
    answer = await call(agents, login, 'POST', `auth/${login.authPath}/login`, undefined, { role: login.role, jwt }, signal);
  } catch (error) {
    throw new LoginFailed(`could not reach ${where}: ${(error as Error).message}`);
  }
  const token = (answer.body as { auth?: { client_token?: unknown } } | null)?.auth?.client_token;
  if (answer.status !== 200 || typeof token !== 'string' || token === '')
    throw new LoginFailed(`login to ${where} with role "${login.role}" failed (${answer.status}): ${errorText(answer)}`);
  return {
    token,
    revoke: async () => {
      try {
        const revoked = await call(agents, login, 'POST', 'auth/token/revoke-self', token, undefined);
        return revoked.status === 204 || revoked.status === 200
          ? null
          : `revoking the token failed (${revoked.status}): ${errorText(revoked)}`;
      } catch (error) {
        return `revoking the token failed: ${(error as Error).message}`;
      }
    },
  };
}
