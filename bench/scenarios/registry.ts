import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import tar from 'tar-stream';
import { call as platformCall, jsonApiHeaders } from '../platform-setup.js';
import type { BenchTarget, Scenario } from '../scenario.js';

const ORG = 'understudy';
const call = (target: BenchTarget, method: string, path: string, body?: unknown) =>
  platformCall<{ data: { id: string; links: Record<string, string> } }>(target, method, path, body);

/** Runs `task` for 0..count-1, a few at a time (setup speed only; the measurement is autocannon's). */
async function inBatches(count: number, task: (index: number) => Promise<unknown>): Promise<void> {
  for (let start = 0; start < count; start += 16)
    await Promise.all(Array.from({ length: Math.min(16, count - start) }, (_, offset) => task(start + offset)));
}

async function tarball(files: { name: string; content: string | Buffer }[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  for (const file of files) pack.entry({ name: file.name }, file.content);
  pack.finalize();
  await ended;
  return gzipSync(Buffer.concat(chunks));
}

const createModule = (target: BenchTarget, name: string) =>
  call(target, 'POST', `/api/v2/organizations/${ORG}/registry-modules`, {
    data: { type: 'registry-modules', attributes: { name, provider: 'aws' } },
  });
const createVersion = (target: BenchTarget, name: string, version: string) =>
  call(target, 'POST', `/api/v2/organizations/${ORG}/registry-modules/private/${ORG}/${name}/aws/versions`, {
    data: { type: 'registry-module-versions', attributes: { version } },
  });

async function uploaded(target: BenchTarget, link: string, archive: Buffer): Promise<void> {
  const response = await fetch(link, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: new Uint8Array(archive),
  });
  if (response.status !== 200) throw new Error(`upload: ${response.status} ${await response.text()}`);
}

/** A module with 200 uploaded versions (each a small real module). */
async function moduleWith200Versions(target: BenchTarget): Promise<void> {
  await createModule(target, 'many');
  const archive = await tarball([{ name: 'main.tf', content: 'variable "x" {\n  default = 1\n}\n\noutput "y" {\n  value = var.x\n}\n' }]);
  await inBatches(200, async (index) => {
    const version = await createVersion(target, 'many', `1.${Math.floor(index / 10)}.${index % 10}`);
    await uploaded(target, version.data.links['upload']!, archive);
  });
}

/** 5,000 modules in one organization. */
async function organizationWith5000Modules(target: BenchTarget): Promise<void> {
  await inBatches(5000, (index) => createModule(target, `m${String(index).padStart(5, '0')}`));
}

const registryHeaders = (target: BenchTarget) => ({ authorization: `Bearer ${target.adminToken}` });

/**
 * The registry. The two module-list rows should be within 1.3× of each other (paging happens in
 * SQL on an index); version listing and download of a module with 200 versions read one module's
 * rows only; the upload row is the full path of a 1 MB archive: stream, gunzip, tar checks, HCL
 * parse, store (its p99 in ms is the figure to read).
 */
export const scenarios: Scenario[] = [
  {
    name: 'GET /api/registry/v1/modules/:ns/:name/:provider/versions (200 versions)',
    setup: async (target) => {
      await moduleWith200Versions(target);
      return { path: `/api/registry/v1/modules/${ORG}/many/aws/versions`, headers: registryHeaders(target) };
    },
  },
  {
    name: 'GET /api/registry/v1/modules/:ns/:name/:provider/:version/download (200 versions)',
    setup: async (target) => {
      await moduleWith200Versions(target);
      return { path: `/api/registry/v1/modules/${ORG}/many/aws/1.10.5/download`, headers: registryHeaders(target) };
    },
  },
  {
    name: 'GET /api/v2/organizations/:org/registry-modules (page 1 of 5,000)',
    setup: async (target) => {
      await organizationWith5000Modules(target);
      return { path: `/api/v2/organizations/${ORG}/registry-modules?page%5Bnumber%5D=1`, headers: jsonApiHeaders(target) };
    },
  },
  {
    name: 'GET /api/v2/organizations/:org/registry-modules (page 125 of 5,000)',
    setup: async (target) => {
      await organizationWith5000Modules(target);
      return { path: `/api/v2/organizations/${ORG}/registry-modules?page%5Bnumber%5D=125`, headers: jsonApiHeaders(target) };
    },
  },
  {
    name: 'PUT registry upload link (1 MB module: stream, unpack, parse HCL, store)',
    setup: async (target) => {
      await createModule(target, 'big');
      const version = await createVersion(target, 'big', '1.0.0');
      const variables = Array.from({ length: 100 }, (_, i) => `variable "v${i}" {\n  type    = string\n  default = "d${i}"\n}\n`).join(
        '\n',
      );
      // Random bytes do not compress, so the archive itself is about 1 MB.
      const archive = await tarball([
        { name: 'main.tf', content: variables },
        { name: 'README.md', content: '# big\n' },
        { name: 'files/blob.bin', content: randomBytes(1024 * 1024) },
      ]);
      const link = new URL(version.data.links['upload']!);
      return { method: 'PUT', path: link.pathname, headers: { 'content-type': 'application/octet-stream' }, body: archive };
    },
  },
];
