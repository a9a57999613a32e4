import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { advance, createToken, list, putPolicy, v1 } from './client.js';
import { TEST_ENGINE, withTestEngine } from './test-engine.js';

async function mountTestEngine(server: TestServer, path = 'creds-engine', config: Record<string, unknown> = {}) {
  const reply = await v1(server, 'POST', `sys/mounts/${path}`, { body: { type: TEST_ENGINE, config } });
  if (reply.status !== 204) throw new Error(`mount: ${reply.status} ${reply.text}`);
}

async function issue(server: TestServer, query: string, token?: string) {
  const reply = await v1(server, 'GET', `creds-engine/creds/${query}`, { token });
  if (reply.status !== 200) throw new Error(`issue: ${reply.status} ${reply.text}`);
  return reply.body as {
    lease_id: string;
    lease_duration: number;
    renewable: boolean;
    data: Record<string, unknown>;
    warnings: string[] | null;
  };
}

describe('leases', () => {
  let server: TestServer;
  const { engines, records } = withTestEngine();
  const { revokeAttempts, revokedLeases } = records;
  beforeAll(async () => {
    server = await startServer({}, { engines });
    await mountTestEngine(server, 'creds-engine', { max_lease_ttl: '10h' });
  });
  afterAll(() => server.close());

  it('carries lease_id, lease_duration and renewable on the response', async () => {
    const body = await issue(server, 'web?ttl=1h');
    expect(body.lease_id).toMatch(/^creds-engine\/creds\/web\/[0-9A-Za-z]{24}$/);
    expect(body.lease_duration).toBe(3600);
    expect(body.renewable).toBe(true);
    expect(body.data).toEqual({ username: 'user-web' });
  });

  it('caps a lease at the mount maximum with the real warning', async () => {
    const body = await issue(server, 'long?ttl=20h');
    expect(body.lease_duration).toBe(36_000);
    expect(body.warnings).toEqual(['TTL of "20h0m0s" exceeded the effective max_ttl of "10h0m0s"; TTL value is capped accordingly']);
  });

  it('looks a lease up, and answers an unknown one with 400 invalid lease', async () => {
    const { lease_id } = await issue(server, 'lookup?ttl=1h');
    const reply = await v1(server, 'PUT', 'sys/leases/lookup', { body: { lease_id } });
    expect(reply.status).toBe(200);
    expect(reply.body.data).toMatchObject({ id: lease_id, renewable: true, last_renewal: null });
    expect(reply.body.data.ttl).toBeGreaterThanOrEqual(3599);
    expect(Date.parse(reply.body.data.expire_time) - Date.parse(reply.body.data.issue_time)).toBe(3_600_000);
    const unknown = await v1(server, 'PUT', 'sys/leases/lookup', { body: { lease_id: 'creds-engine/creds/x/nope' } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual(['invalid lease']);
  });

  it('renews with an increment, a null increment, through the legacy path and a path suffix', async () => {
    const { lease_id } = await issue(server, 'renew?ttl=1h&max_ttl=3h');
    const renewed = await v1(server, 'PUT', 'sys/leases/renew', { body: { lease_id, increment: 7200 } });
    expect(renewed.status).toBe(200);
    expect(renewed.body).toMatchObject({ lease_id, renewable: true, lease_duration: 7200, data: null, warnings: null });
    // hvac sends a null increment: the lease's default TTL applies.
    expect((await v1(server, 'PUT', 'sys/leases/renew', { body: { lease_id, increment: null } })).body.lease_duration).toBe(3600);
    expect((await v1(server, 'PUT', 'sys/renew', { body: { lease_id, increment: '30m' } })).body.lease_duration).toBe(1800);
    expect((await v1(server, 'PUT', `sys/leases/renew/${lease_id}`, { body: {} })).body.lease_id).toBe(lease_id);
    const lookup = await v1(server, 'PUT', 'sys/leases/lookup', { body: { lease_id } });
    expect(lookup.body.data.last_renewal).toEqual(expect.any(String));
  });

  it('caps a renewal at issue time + max TTL, then refuses past it', async () => {
    const { lease_id } = await issue(server, 'capped?ttl=1h&max_ttl=2h');
    await advance(server, '30m');
    const capped = await v1(server, 'PUT', 'sys/leases/renew', { body: { lease_id, increment: '5h' } });
    expect(capped.body.lease_duration).toBeGreaterThanOrEqual(5399);
    expect(capped.body.warnings).toEqual([
      expect.stringMatching(/^TTL of "5h0m0s" exceeded the effective max_ttl of "1h(30m0s|29m59s)"; TTL value is capped accordingly$/),
    ]);

    // A lease whose TTL is its max: with under a second left it is still live but cannot grow.
    const full = await issue(server, 'full?ttl=2h&max_ttl=2h');
    await advance(server, '1h59m59s');
    const past = await v1(server, 'PUT', 'sys/leases/renew', { body: { lease_id: full.lease_id, increment: '1h' } });
    expect(past.status).toBe(400);
    expect(past.body.errors).toEqual(['past the max TTL, cannot renew']);
  });

  it('refuses renewals the real service refuses', async () => {
    expect((await v1(server, 'PUT', 'sys/leases/renew', { body: {} })).body.errors).toEqual(['lease_id must be specified']);
    expect((await v1(server, 'PUT', 'sys/leases/renew', { body: { lease_id: 'nope/x' } })).body.errors).toEqual(['lease not found']);
    expect((await v1(server, 'PUT', 'sys/leases/renew', { body: { lease_id: 'auth/token/create/abc' } })).body.errors).toEqual([
      'tokens cannot be renewed through this endpoint',
    ]);
    const fixed = await issue(server, 'fixed?ttl=1h&renewable=false');
    expect((await v1(server, 'PUT', 'sys/leases/renew', { body: { lease_id: fixed.lease_id } })).body.errors).toEqual([
      'lease is not renewable',
    ]);
  });

  it('revokes (sync 204 by default, 202 with sync false, 204 for unknown ids) and runs the engine revoke', async () => {
    const one = await issue(server, 'revoke1?ttl=1h');
    expect((await v1(server, 'PUT', 'sys/leases/revoke', { body: { lease_id: one.lease_id } })).status).toBe(204);
    expect(revokedLeases).toContain(one.lease_id);
    expect((await v1(server, 'PUT', 'sys/leases/lookup', { body: { lease_id: one.lease_id } })).status).toBe(400);
    const two = await issue(server, 'revoke2?ttl=1h');
    expect((await v1(server, 'PUT', 'sys/revoke', { body: { lease_id: two.lease_id } })).status).toBe(204);
    expect(revokedLeases).toContain(two.lease_id);
    const three = await issue(server, 'revoke3?ttl=1h');
    const async = await v1(server, 'PUT', `sys/leases/revoke/${three.lease_id}`, { body: { sync: false } });
    expect(async.status).toBe(202);
    expect((await v1(server, 'PUT', 'sys/leases/revoke', { body: { lease_id: 'nope/x' } })).status).toBe(204);
  });

  it('revokes by prefix (sudo, also the legacy path) and lists ids under a prefix (sudo)', async () => {
    const a = await issue(server, 'prefixed?ttl=1h');
    const b = await issue(server, 'prefixed?ttl=1h');
    const listed = await list(server, 'sys/leases/lookup/creds-engine/creds/prefixed');
    expect(listed.body.data.keys.sort()).toEqual([a.lease_id, b.lease_id].map((id) => id.split('/').at(-1)).sort());
    expect((await list(server, 'sys/leases/lookup/creds-engine/')).body.data.keys).toEqual(['creds/']);
    expect((await v1(server, 'PUT', 'sys/leases/revoke-prefix/creds-engine/creds/prefixed')).status).toBe(204);
    expect(revokedLeases).toEqual(expect.arrayContaining([a.lease_id, b.lease_id]));
    expect((await list(server, 'sys/leases/lookup/creds-engine/creds/prefixed')).status).toBe(404);
    const c = await issue(server, 'legacy?ttl=1h');
    expect((await v1(server, 'PUT', 'sys/revoke-prefix/creds-engine/creds/legacy')).status).toBe(204);
    expect(revokedLeases).toContain(c.lease_id);
  });

  it('revoke-force drops leases whose engine fails to revoke them (sudo, also the legacy path)', async () => {
    const broken = await issue(server, 'broken-forced?ttl=1h');
    const refused = await v1(server, 'PUT', 'sys/leases/revoke-prefix/creds-engine/creds/broken-forced');
    expect(refused).toMatchObject({ status: 400, body: { errors: ['failed to revoke prefix: database unreachable'] } });
    expect((await list(server, 'sys/leases/lookup/creds-engine/creds/broken-forced')).status).toBe(200);
    await putPolicy(server, 'no-sudo', 'path "sys/leases/revoke-force/*" { capabilities = ["update"] }');
    const plain = (await createToken(server, { policies: ['no-sudo'] })).client_token;
    expect((await v1(server, 'PUT', 'sys/leases/revoke-force/creds-engine/creds/broken-forced', { token: plain })).status).toBe(403);
    expect((await v1(server, 'PUT', 'sys/leases/revoke-force/creds-engine/creds/broken-forced')).status).toBe(204);
    expect((await list(server, 'sys/leases/lookup/creds-engine/creds/broken-forced')).status).toBe(404);
    expect(revokedLeases).not.toContain(broken.lease_id);
    await issue(server, 'broken-legacy?ttl=1h');
    expect((await v1(server, 'PUT', 'sys/revoke-force/creds-engine/creds/broken-legacy')).status).toBe(204);
    expect((await list(server, 'sys/leases/lookup/creds-engine/creds/broken-legacy')).status).toBe(404);
  });

  it('revoke-prefix takes one lease named exactly, and the tokens a token path prefix covers', async () => {
    const one = await issue(server, 'exact?ttl=1h');
    const other = await issue(server, 'exact?ttl=1h');
    expect((await v1(server, 'PUT', `sys/leases/revoke-prefix/${one.lease_id}`)).status).toBe(204);
    expect(revokedLeases).toContain(one.lease_id);
    expect(revokedLeases).not.toContain(other.lease_id);

    expect((await v1(server, 'POST', 'auth/token/roles/batchjob', { body: { path_suffix: 'rev1' } })).status).toBe(204);
    const byRole = (await v1(server, 'POST', 'auth/token/create/batchjob', { body: {} })).body.auth.client_token as string;
    const plain = (await createToken(server, {})).client_token;
    expect((await v1(server, 'PUT', 'sys/leases/revoke-prefix/auth/token/create/batchjob/rev1')).status).toBe(204);
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: byRole })).status).toBe(403);
    expect((await v1(server, 'GET', 'auth/token/lookup-self', { token: plain })).status).toBe(200);
  });

  it('revokes a lease when the clock passes its expiry', async () => {
    const { lease_id } = await issue(server, 'expiring?ttl=2h');
    expect(await advance(server, '1h')).not.toContainEqual(expect.objectContaining({ subject: lease_id }));
    const ran = await advance(server, '1h1s');
    expect(ran).toContainEqual(expect.objectContaining({ kind: 'lease-revocation', subject: lease_id, outcome: 'done' }));
    expect(revokedLeases).toContain(lease_id);
  });

  it('retries a failing revocation with exponential backoff until it succeeds', async () => {
    const { lease_id } = await issue(server, 'flaky?ttl=1h');
    const ran = (await advance(server, '2h')).filter((work) => work.subject === lease_id);
    expect(ran.map((work) => work.outcome)).toEqual(['failed', 'failed', 'done']);
    const times = ran.map((work) => Date.parse((work as unknown as { at: string }).at));
    // 2^n × 10 s after attempt n, give or take half: 10-30 s, then 20-60 s (as the real service backs off).
    const gaps = [(times[1] as number) - (times[0] as number), (times[2] as number) - (times[1] as number)];
    expect(gaps[0]).toBeGreaterThanOrEqual(10_000);
    expect(gaps[0]).toBeLessThanOrEqual(30_000);
    expect(gaps[1]).toBeGreaterThanOrEqual(20_000);
    expect(gaps[1]).toBeLessThanOrEqual(60_000);
    expect(ran[0]?.detail).toMatch(/^attempt 1: database unreachable \(attempt 1\); next attempt at /);
    expect(revokeAttempts.get(lease_id)).toBe(3);
  });

  it('answers a failing explicit revocation with a 400 and keeps retrying it', async () => {
    const { lease_id } = await issue(server, 'flaky-explicit?ttl=1h');
    const reply = await v1(server, 'PUT', 'sys/leases/revoke', { body: { lease_id } });
    expect(reply.status).toBe(400);
    expect(reply.body.errors).toEqual(['failed to revoke entry: database unreachable (attempt 1)']);
    // The retries come 10-30 s, then 20-60 s later.
    const ran = (await advance(server, '2m')).filter((work) => work.subject === lease_id);
    expect(ran.map((work) => work.outcome)).toEqual(['failed', 'done']);
  });

  it("revokes a token's leases when the token is revoked, and when it expires", async () => {
    await putPolicy(server, 'creds-reader', 'path "creds-engine/creds/*" { capabilities = ["read"] }');
    const token = (await createToken(server, { policies: ['creds-reader'] })).client_token;
    const { lease_id } = await issue(server, 'owned?ttl=5h', token);
    await v1(server, 'POST', 'auth/token/revoke-self', { token });
    expect(revokedLeases).toContain(lease_id);

    const shortLived = (await createToken(server, { policies: ['creds-reader'], ttl: '10m' })).client_token;
    const owned = await issue(server, 'owned2?ttl=5h', shortLived);
    const ran = await advance(server, '11m');
    expect(ran).toContainEqual(expect.objectContaining({ kind: 'token-expiry' }));
    expect(revokedLeases).toContain(owned.lease_id);
  });
});

describe('pending lease work across a restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'understudy-leases-'));
  const store = join(dir, 'store.sqlite');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('runs an expiry, a token expiry and a pending retry that were scheduled before the restart', async () => {
    // Both servers reach the same "database" (one set of records): the flaky lease's first failed
    // attempt, made before the restart, counts towards the two it fails.
    const { engines, records } = withTestEngine();
    const first = await startServer({ UNDERSTUDY_STORE: store }, { engines });
    await mountTestEngine(first);
    const plain = await issue(first, 'restart?ttl=30m');
    const flaky = await issue(first, 'flaky-restart?ttl=10m');
    const token = await createToken(first, { policies: ['default'], ttl: '40m' });
    // The flaky lease fails once before the restart; its retry is persisted.
    const before = (await advance(first, '10m')).filter((work) => work.subject === flaky.lease_id);
    expect(before.map((work) => work.outcome)).toEqual(['failed']);
    await first.close();

    const second = await startServer({ UNDERSTUDY_STORE: store }, withTestEngine(records));
    try {
      const ran = await advance(second, '1h');
      expect(ran.filter((work) => work.subject === flaky.lease_id).map((work) => work.outcome)).toEqual(['failed', 'done']);
      expect(ran).toContainEqual(expect.objectContaining({ subject: plain.lease_id, outcome: 'done' }));
      expect(ran).toContainEqual(expect.objectContaining({ kind: 'token-expiry', subject: token.accessor, outcome: 'done' }));
      expect(records.revokedLeases).toEqual(expect.arrayContaining([plain.lease_id, flaky.lease_id]));
    } finally {
      await second.close();
    }
  });
});
