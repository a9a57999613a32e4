import type { BenchTarget } from './scenario.js';

/** Helpers the platform scenarios share. */
export const headers = (target: BenchTarget) => ({ authorization: `Bearer ${target.adminToken}`, accept: 'application/vnd.api+json' });

/** `headers` plus the JSON:API content type, for requests that carry a document. */
export const jsonApiHeaders = (target: BenchTarget) => ({ ...headers(target), 'content-type': 'application/vnd.api+json' });

/** One setup request; anything but a 2xx stops the scenario. `T` is the part of the answer the caller reads. */
export async function call<T = { data: { id: string } }>(
  target: BenchTarget,
  method: string,
  path: string,
  body?: unknown,
  jsonApi = true,
): Promise<T> {
  const response = await fetch(target.baseUrl + path, {
    method,
    headers: { ...headers(target), 'content-type': jsonApi ? 'application/vnd.api+json' : 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
  return JSON.parse(text === '' ? '{}' : text) as T;
}

/** Creates the organization unless an earlier scenario of the same world did; true when it was created. */
export async function ensureOrganization(target: BenchTarget, name: string): Promise<boolean> {
  const found = await fetch(`${target.baseUrl}/api/v2/organizations/${name}`, { headers: headers(target) });
  await found.arrayBuffer();
  if (found.status === 200) return false;
  await call(target, 'POST', '/api/v2/organizations', {
    data: { type: 'organizations', attributes: { name, email: `${name}@bench.test` } },
  });
  return true;
}
