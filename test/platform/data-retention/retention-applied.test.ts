import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, control, platform } from '../../helpers/app.js';
import { simpleConfig, uploadConfiguration } from '../runs/helpers.js';
import { md5, stateFile } from '../state/state-file.js';
import { ORG, startWorld, workspaceWithLevels, type World } from '../workspaces/world.js';

const LINEAGE = '9e2f4d6a-1234-4321-abcd-0123456789ab';
const DELETE_OLDER = 'data-retention-policy-delete-olders';

let world: World;

beforeAll(async () => {
  world = await startWorld();
});
afterAll(() => world.close());

/** A workspace with `count` finalized state versions (the last current) and `configs` uploaded configuration versions. */
async function workspaceWithHistory(name: string, count: number, configs: number) {
  const workspace = (await workspaceWithLevels(world, name)).id;
  expect((await platform(world.server, 'POST', `/workspaces/${workspace}/actions/lock`)).status).toBe(200);
  const states = [];
  for (let serial = 1; serial <= count; serial++) {
    const state = stateFile(serial, LINEAGE, { count: 1, greeting: `${name}-${serial}` });
    const created = await platform(world.server, 'POST', `/workspaces/${workspace}/state-versions`, {
      body: {
        data: { type: 'state-versions', attributes: { serial, lineage: LINEAGE, md5: md5(state), state: state.toString('base64') } },
      },
    });
    expect(created.status).toBe(201);
    states.push(created.body.data.id as string);
  }
  expect((await platform(world.server, 'POST', `/workspaces/${workspace}/actions/unlock`)).status).toBe(200);
  const configurations = [];
  for (let n = 1; n <= configs; n++) configurations.push(await uploadConfiguration(world.server, workspace, simpleConfig(`${name}-${n}`)));
  return { workspace, states, configurations };
}

const policy = (path: string, body: unknown) => platform(world.server, 'POST', `${path}/relationships/data-retention-policy`, { body });
const deleteOlder = (days: number) => ({ data: { type: DELETE_OLDER, attributes: { 'delete-older-than-n-days': days } } });
const status = async (kind: 'state-versions' | 'configuration-versions', id: string) =>
  (await platform(world.server, 'GET', `/${kind}/${id}`)).body.data.attributes.status as string;

/** The status of a configuration version's download (a slug, so not read as JSON). */
const downloadStatus = async (id: string) =>
  (
    await fetch(`${world.server.baseUrl}/api/v2/configuration-versions/${id}/download`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    })
  ).status;

/** Moves the emulated clock and answers the subjects of the retention work that ran on the way. */
async function advance(by: string): Promise<string[]> {
  const moved = await control(world.server, 'POST', '/clock', { advance: by });
  expect(moved.status).toBe(200);
  return (moved.body.ran as { kind: string; subject: string; detail?: string }[])
    .filter((work) => work.kind === 'data-retention' && work.detail !== 'no longer due')
    .map((work) => work.subject)
    .sort();
}

describe('data retention applied (self-hosted)', () => {
  it('soft deletes backing data older than N days as the clock moves, never the current versions', async () => {
    const owned = await workspaceWithHistory('drp-applied-own', 3, 2);
    const inheriting = await workspaceWithHistory('drp-applied-inherit', 2, 1);
    const keeping = await workspaceWithHistory('drp-applied-keep', 2, 2);
    const unmanaged = await workspaceWithHistory('drp-applied-none', 2, 2);

    expect((await policy(`/workspaces/${owned.workspace}`, deleteOlder(2))).status).toBe(201);
    expect((await policy(`/workspaces/${keeping.workspace}`, { data: { type: 'data-retention-policy-dont-deletes' } })).status).toBe(201);

    // A day on, nothing is old enough.
    expect(await advance('24h')).toEqual([]);
    expect(await status('state-versions', owned.states[0]!)).toBe('finalized');

    // Past two days: the owned workspace's older state versions and its older configuration version go.
    const [first, second, current] = owned.states as [string, string, string];
    const [olderConfig, newestConfig] = owned.configurations as [string, string];
    expect(await advance('36h')).toEqual([first, second, olderConfig].sort());
    expect(await status('state-versions', first)).toBe('backing_data_soft_deleted');
    expect(await status('state-versions', second)).toBe('backing_data_soft_deleted');
    expect(await status('state-versions', current)).toBe('finalized');
    expect(await status('configuration-versions', olderConfig)).toBe('backing_data_soft_deleted');
    expect(await status('configuration-versions', newestConfig)).toBe('uploaded');
    expect(await downloadStatus(olderConfig)).toBe(404);
    expect(await downloadStatus(newestConfig)).toBe(200);
    // Workspaces without a policy of their own or from their organization keep everything.
    expect(await status('state-versions', unmanaged.states[0]!)).toBe('finalized');

    // An organization's policy reaches its workspaces without one; a workspace's own `dont-delete` wins over it.
    // What is already overdue may run on the scheduler's own timer before the clock moves, so the
    // statuses after the move are the proof here, not the move's list.
    expect((await policy(`/organizations/${ORG}`, deleteOlder(1))).status).toBe(201);
    await advance('1h');
    expect(await status('state-versions', unmanaged.states[0]!)).toBe('backing_data_soft_deleted');
    expect(await status('configuration-versions', unmanaged.configurations[0]!)).toBe('backing_data_soft_deleted');
    expect(await status('state-versions', inheriting.states[0]!)).toBe('backing_data_soft_deleted');
    expect(await status('state-versions', inheriting.states[1]!)).toBe('finalized');
    expect(await status('configuration-versions', inheriting.configurations[0]!)).toBe('uploaded');
    expect(await status('state-versions', keeping.states[0]!)).toBe('finalized');
    expect(await status('configuration-versions', keeping.configurations[0]!)).toBe('uploaded');

    // A newer current state version makes the old current one a candidate, due at its own age.
    expect((await platform(world.server, 'POST', `/workspaces/${owned.workspace}/actions/lock`)).status).toBe(200);
    const state = stateFile(4, LINEAGE, { count: 1, greeting: 'drp-applied-own-4' });
    const newer = await platform(world.server, 'POST', `/workspaces/${owned.workspace}/state-versions`, {
      body: {
        data: { type: 'state-versions', attributes: { serial: 4, lineage: LINEAGE, md5: md5(state), state: state.toString('base64') } },
      },
    });
    expect(newer.status).toBe(201);
    expect((await platform(world.server, 'POST', `/workspaces/${owned.workspace}/actions/unlock`)).status).toBe(200);
    await advance('1m');
    expect(await status('state-versions', current)).toBe('backing_data_soft_deleted');
    expect(await status('state-versions', newer.body.data.id)).toBe('finalized');

    // Removing the policies stops the sweep.
    expect((await platform(world.server, 'DELETE', `/organizations/${ORG}/relationships/data-retention-policy`)).status).toBe(204);
    expect((await platform(world.server, 'DELETE', `/workspaces/${owned.workspace}/relationships/data-retention-policy`)).status).toBe(204);
    expect(await advance('720h')).toEqual([]);
    expect(await status('state-versions', newer.body.data.id)).toBe('finalized');
  });
});
