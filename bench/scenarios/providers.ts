import { createHash } from 'node:crypto';
import { addGoals, cost } from '../goals.js';
import { call as platformCall } from '../platform-setup.js';
import type { BenchTarget, Scenario } from '../scenario.js';

const ORG = 'understudy';
const call = (target: BenchTarget, method: string, path: string, body?: unknown) =>
  platformCall<{ data: { id: string; links: Record<string, string> } }>(target, method, path, body);

async function put(link: string, body: Buffer): Promise<void> {
  const response = await fetch(link, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Uint8Array(body),
  });
  if (response.status !== 200) throw new Error(`upload: ${response.status} ${await response.text()}`);
}

/**
 * A private provider with 200 complete versions (sums, signature, one platform's zip each). The
 * bytes need not verify: understudy stores them, the CLI checks them, and this row measures the
 * protocol's read, not the CLI.
 */
async function providerWith200Versions(target: BenchTarget): Promise<void> {
  await call(target, 'POST', `/api/v2/organizations/${ORG}/registry-providers`, {
    data: { type: 'registry-providers', attributes: { name: 'many', namespace: ORG, 'registry-name': 'private' } },
  });
  const zip = Buffer.concat([Buffer.from('PK\x03\x04', 'latin1'), Buffer.alloc(1024, 7)]);
  const shasum = createHash('sha256').update(zip).digest('hex');
  const base = `/api/v2/organizations/${ORG}/registry-providers/private/${ORG}/many/versions`;
  for (let start = 0; start < 200; start += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, 200 - start) }, async (_, offset) => {
        const index = start + offset;
        const version = `1.${Math.floor(index / 10)}.${index % 10}`;
        const made = await call(target, 'POST', base, {
          data: { type: 'registry-provider-versions', attributes: { version, 'key-id': '0123456789ABCDEF', protocols: ['5.0'] } },
        });
        await put(made.data.links['shasums-upload']!, Buffer.from(`${shasum}  p_${version}_linux_amd64.zip\n`));
        await put(made.data.links['shasums-sig-upload']!, Buffer.from('signature'));
        const platform = await call(target, 'POST', `${base}/${version}/platforms`, {
          data: {
            type: 'registry-provider-platforms',
            attributes: { os: 'linux', arch: 'amd64', shasum, filename: `p_${version}_linux_amd64.zip` },
          },
        });
        await put(platform.data.links['provider-binary-upload']!, zip);
      }),
    );
  }
}

const PROVIDER_VERSIONS = 'GET /api/registry/v1/providers/:ns/:name/versions (200 versions)';
const MODULE_VERSIONS = 'GET /api/registry/v1/modules/:ns/:name/:provider/versions (200 versions)';

// Issue 29: the CLI's first provider read costs no more than its module counterpart.
addGoals(cost('provider versions read vs module versions read', PROVIDER_VERSIONS, MODULE_VERSIONS, 1.2));

export const scenarios: Scenario[] = [
  {
    name: PROVIDER_VERSIONS,
    setup: async (target) => {
      await providerWith200Versions(target);
      return { path: `/api/registry/v1/providers/${ORG}/many/versions`, headers: { authorization: `Bearer ${target.adminToken}` } };
    },
  },
];
