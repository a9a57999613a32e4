import { request as httpRequest } from 'node:http';
import { ROOT_TOKEN, type TestServer } from '../../helpers/app.js';

/** Helpers for the secrets-core tests: raw HTTP against `/v1` and `/_emulator`, as clients send it. */

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- bodies are asserted field by field
  body: any;
}

async function toReply(response: Response): Promise<Reply> {
  const text = await response.text();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: response.status, headers: response.headers, text, body };
}

/** One `/v1` request; `token: null` sends none. */
export async function v1(
  server: TestServer,
  method: string,
  path: string,
  options: { token?: string | null; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const token = options.token === undefined ? ROOT_TOKEN : options.token;
  const headers: Record<string, string> = { ...options.headers };
  if (token) headers['x-vault-token'] = token;
  let body: string | undefined;
  if (options.body !== undefined) {
    headers['content-type'] = 'application/json';
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
  }
  return toReply(await fetch(`${server.baseUrl}/v1/${path}`, { method, headers, body }));
}

/** A list the way the Go client and hvac's generic `list` send it: `GET ?list=true`. */
export function list(server: TestServer, path: string, token?: string | null): Promise<Reply> {
  return v1(server, 'GET', `${path}?list=true`, { token });
}

/** A list with the real `LIST` method (Node's client can send it; the server needs the socket-level support). */
export function listMethod(server: TestServer, path: string, token = ROOT_TOKEN): Promise<{ status: number; body: unknown }> {
  const url = new URL(`${server.baseUrl}/v1/${path}`);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { method: 'LIST', host: url.hostname, port: url.port, path: url.pathname, headers: { 'x-vault-token': token } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => {
          let body: unknown;
          try {
            body = text === '' ? undefined : JSON.parse(text);
          } catch {
            body = text;
          }
          resolve({ status: res.statusCode ?? 0, body });
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** A request whose path goes out byte for byte (fetch would resolve `..` segments first). */
export function rawV1(
  server: TestServer,
  method: string,
  rawPath: string,
  options: { token?: string; body?: unknown } = {},
): Promise<{ status: number; body: unknown }> {
  const url = new URL(server.baseUrl);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  const headers: Record<string, string> = { 'x-vault-token': options.token ?? ROOT_TOKEN };
  if (payload) headers['content-type'] = 'application/json';
  return new Promise((resolve, reject) => {
    const req = httpRequest({ method, host: url.hostname, port: url.port, path: `/v1/${rawPath}`, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text === '' ? undefined : (JSON.parse(text) as unknown) }));
    });
    req.on('error', reject);
    req.end(payload);
  });
}

/** `POST /_emulator/clock`. */
export async function clock(server: TestServer, body: Record<string, unknown>): Promise<Reply> {
  return toReply(
    await fetch(`${server.baseUrl}/_emulator/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
}

/** Advances the emulated clock and returns what ran. */
export async function advance(
  server: TestServer,
  duration: string,
): Promise<{ kind: string; subject: string; outcome: string; detail?: string }[]> {
  const reply = await clock(server, { advance: duration });
  if (reply.status !== 200) throw new Error(`clock advance failed: ${reply.status} ${reply.text}`);
  return reply.body.ran;
}

export async function putPolicy(server: TestServer, name: string, policy: string): Promise<void> {
  const reply = await v1(server, 'PUT', `sys/policies/acl/${name}`, { body: { policy } });
  if (reply.status !== 204) throw new Error(`policy ${name}: ${reply.status} ${reply.text}`);
}

/** Creates a token and returns its `auth` block. */
export async function createToken(server: TestServer, body: Record<string, unknown>, token: string = ROOT_TOKEN) {
  const reply = await v1(server, 'POST', 'auth/token/create', { token, body });
  if (reply.status !== 200) throw new Error(`token create: ${reply.status} ${reply.text}`);
  return reply.body.auth as {
    client_token: string;
    accessor: string;
    policies: string[];
    lease_duration: number;
    renewable: boolean;
    orphan: boolean;
    num_uses: number;
  };
}

export const POLICY_DENIED = ['1 error occurred:\n\t* permission denied\n\n'];
export const TOKEN_DENIED = ['permission denied'];
