import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryDelayMs } from '../../../src/secrets/leases/lease-manager.js';
import { startServer, type TestServer } from '../../helpers/app.js';
import { advance, v1 } from './client.js';
import { TEST_ENGINE, withTestEngine } from './test-engine.js';

/** A revocation that keeps failing (the database connection is gone) backs off and then gives up, visibly. */
describe('irrevocable leases', () => {
  let server: TestServer;
  let accessor: string;
  const { engines, records } = withTestEngine();
  const { repaired, revokeAttempts } = records;
  beforeAll(async () => {
    server = await startServer({}, { engines });
    expect((await v1(server, 'POST', 'sys/mounts/gone-db', { body: { type: TEST_ENGINE } })).status).toBe(204);
    accessor = (await v1(server, 'GET', 'sys/mounts')).body.data['gone-db/'].accessor as string;
  });
  afterAll(() => server.close());

  const issue = async (name: string) => (await v1(server, 'GET', `gone-db/creds/${name}?ttl=1h`)).body.lease_id as string;

  it('backs off 2^n x 10 s, give or take half, as the real service does', () => {
    expect([retryDelayMs(1, 0), retryDelayMs(1, 0.999_999)]).toEqual([10_000, 30_000]);
    expect([retryDelayMs(5, 0), retryDelayMs(5, 0.5)]).toEqual([160_000, 320_000]);
  });

  it('tries six times across one clock jump of a year, then marks the lease irrevocable', async () => {
    const leaseId = await issue('broken-a');
    const ran = (await advance(server, '8760h')).filter((work) => work.subject === leaseId);
    expect(revokeAttempts.get(leaseId)).toBe(6);
    expect(ran.map((work) => work.outcome)).toEqual(Array(6).fill('failed'));
    expect(ran[5]?.detail).toBe('attempt 6: database unreachable; out of retries, the lease is irrevocable');
    const times = ran.map((work) => Date.parse((work as unknown as { at: string }).at));
    times.slice(1).forEach((time, index) => {
      const exp = 2 ** (index + 1) * 10_000;
      expect(time - (times[index] as number)).toBeGreaterThanOrEqual(exp / 2);
      expect(time - (times[index] as number)).toBeLessThanOrEqual(exp * 1.5);
    });
    // Another jump does not start the retries again.
    expect((await advance(server, '8760h')).filter((work) => work.subject === leaseId)).toEqual([]);
    expect(revokeAttempts.get(leaseId)).toBe(6);
  });

  it('lists and counts irrevocable leases with their last error; lookup still finds them; renewal is refused', async () => {
    const listed = await v1(server, 'GET', 'sys/leases?type=irrevocable');
    expect(listed.status).toBe(200);
    expect(listed.body.data.lease_count).toBe(1);
    expect(listed.body.data.leases).toEqual([
      { lease_id: expect.stringMatching(/^gone-db\/creds\/broken-a\//), mount_id: accessor, error: 'out of retries: database unreachable' },
    ]);
    const counted = await v1(server, 'GET', 'sys/leases/count?type=irrevocable');
    expect(counted.body.data).toEqual({ lease_count: 1, counts: { [accessor]: 1 } });
    const leaseId = listed.body.data.leases[0].lease_id as string;
    expect((await v1(server, 'PUT', 'sys/leases/lookup', { body: { lease_id: leaseId } })).body.data).toMatchObject({
      id: leaseId,
      ttl: 0,
    });
    const renewed = await v1(server, 'PUT', 'sys/leases/renew', { body: { lease_id: leaseId } });
    expect(renewed).toMatchObject({ status: 400, body: { errors: ['lease is expired and has failed previous revocation attempts'] } });
    expect((await v1(server, 'GET', 'sys/leases')).status).toBe(204);
    const badLimit = await v1(server, 'GET', 'sys/leases?type=irrevocable&limit=0');
    expect(badLimit).toMatchObject({ status: 400, body: { errors: ["limit must be 'none' or a positive integer"] } });
  });

  it('stays irrevocable when a revocation by hand fails, and goes when one succeeds', async () => {
    const leaseId = (await v1(server, 'GET', 'sys/leases?type=irrevocable')).body.data.leases[0].lease_id as string;
    const failed = await v1(server, 'PUT', 'sys/leases/revoke', { body: { lease_id: leaseId } });
    expect(failed).toMatchObject({ status: 400, body: { errors: ['failed to revoke entry: database unreachable'] } });
    expect((await v1(server, 'GET', 'sys/leases?type=irrevocable')).body.data.lease_count).toBe(1);
    expect((await advance(server, '1h')).filter((work) => work.subject === leaseId)).toEqual([]);

    repaired.add('broken-a');
    expect((await v1(server, 'PUT', 'sys/leases/revoke', { body: { lease_id: leaseId } })).status).toBe(204);
    expect((await v1(server, 'GET', 'sys/leases?type=irrevocable')).body.data).toEqual({ lease_count: 0, leases: [] });
    expect((await v1(server, 'PUT', 'sys/leases/lookup', { body: { lease_id: leaseId } })).status).toBe(400);
  });
});
