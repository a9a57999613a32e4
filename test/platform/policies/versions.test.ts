import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, startWorld, tokenOf, type World } from '../workspaces/world.js';

/** A policy set directory packed as go-tfe's Upload packs it: a gzip-compressed tar, made here by the real `tar`. */
function policyArchive(): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'policy-set-'));
  try {
    writeFileSync(join(dir, 'sentinel.hcl'), 'policy "tags" {\n  enforcement_level = "hard-mandatory"\n}\n');
    writeFileSync(join(dir, 'tags.sentinel'), 'main = rule { true }\n');
    return execFileSync('tar', ['-czf', '-', '-C', dir, '.']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('policy set versions', () => {
  let world: World;
  let set: string;
  const call = (method: string, path: string, token?: string) => platform(world.server, method, path, token ? { token } : {});
  const put = (url: string, body: Buffer) =>
    fetch(url, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(body) });

  beforeAll(async () => {
    world = await startWorld();
    const created = await platform(world.server, 'POST', `/organizations/${ORG}/policy-sets`, {
      body: { data: { type: 'policy-sets', attributes: { name: 'versioned' } } },
    });
    set = created.body.data.id;
  });
  afterAll(async () => world.server.close());

  it('is pending with an upload link, ready once a .tar.gz is put there, and the set names it', async () => {
    const created = await call('POST', `/policy-sets/${set}/versions`);
    expect(created.status).toBe(201);
    const version = created.body.data;
    expect(version).toMatchObject({
      type: 'policy-set-versions',
      attributes: { source: 'tfe-api', status: 'pending' },
      relationships: { 'policy-set': { data: { id: set, type: 'policy-sets' } } },
    });
    expect(version.attributes['status-timestamps']['pending-at']).toBeDefined();
    const upload = version.links.upload as string;
    expect(upload.startsWith(world.server.baseUrl)).toBe(true);

    const read = await call('GET', `/policy-set-versions/${version.id}`);
    expect(read.body.data.attributes.status).toBe('pending');
    expect(read.body.data.links.upload).toBeUndefined();
    const before = (await call('GET', `/policy-sets/${set}`)).body.data.relationships;
    expect(before['newest-version'].data).toEqual({ id: version.id, type: 'policy-set-versions' });
    expect(before['current-version'].data).toBeNull();

    expect((await put(upload, policyArchive())).status).toBe(200);
    const ready = await call('GET', `/policy-set-versions/${version.id}`);
    expect(ready.body.data.attributes.status).toBe('ready');
    expect(ready.body.data.attributes['status-timestamps']['ready-at']).toBeDefined();
    const after = (await call('GET', `/policy-sets/${set}`)).body.data.relationships;
    expect(after['current-version'].data).toEqual({ id: version.id, type: 'policy-set-versions' });
    expect((await put(upload, policyArchive())).status).toBe(404);
  });

  it('refuses an upload that is not a gzip-compressed tar and leaves the version pending', async () => {
    const version = (await call('POST', `/policy-sets/${set}/versions`)).body.data;
    const upload = version.links.upload as string;
    expect((await put(upload, Buffer.from('main = rule { true }'))).status).toBe(422);
    expect((await put(upload, gzipSync(Buffer.from('not a tar archive')))).status).toBe(422);
    expect((await call('GET', `/policy-set-versions/${version.id}`)).body.data.attributes.status).toBe('pending');
    expect((await put(`${upload}x`, policyArchive())).status).toBe(404);
    expect((await put(upload, policyArchive())).status).toBe(200);
  });

  it('members read versions, Manage Policies makes them; others see nothing', async () => {
    const version = (await call('POST', `/policy-sets/${set}/versions`)).body.data;
    expect((await call('GET', `/policy-set-versions/${version.id}`, tokenOf('member'))).status).toBe(200);
    expect((await call('POST', `/policy-sets/${set}/versions`, tokenOf('member'))).status).toBe(404);
    expect((await call('GET', `/policy-set-versions/${version.id}`, tokenOf('outsider'))).status).toBe(404);
    expect((await call('GET', '/policy-set-versions/polsetver-missing')).status).toBe(404);
    expect((await call('POST', '/policy-sets/polset-missing/versions')).status).toBe(404);
  });
});
