import { ROOT_TOKEN, type TestServer } from '../../helpers/app.js';

export { control } from '../../helpers/app.js';

/** A call to the secrets API with the root token (or `token`). */
export async function secrets(server: TestServer, method: string, path: string, body?: unknown, token = ROOT_TOKEN) {
  const response = await fetch(`${server.baseUrl}/v1/${path}`, {
    method,
    headers: { 'x-vault-token': token, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are asserted field by field
  const parsed: any = text === '' ? undefined : JSON.parse(text);
  return { status: response.status, headers: response.headers, body: parsed };
}
