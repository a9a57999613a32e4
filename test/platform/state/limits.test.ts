import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { startWorld, workspaceWithLevels, type World } from '../workspaces/world.js';
import { md5 } from './state-file.js';

// Size and depth: a state with thousands of outputs is stored whole (the inserts are chunked
// under SQLite's bound-variable limit), and an output nested past the stated depth limit is a
// 422 that names the limit, never a 500.

const LINEAGE = '0b6c1d2e-aaaa-bbbb-cccc-ddddeeeeffff';

function state(outputs: Record<string, unknown>, deepOutput?: number): Buffer {
  const document = JSON.stringify({ version: 4, terraform_version: '1.11.4', serial: 1, lineage: LINEAGE, outputs, resources: [] });
  if (deepOutput === undefined) return Buffer.from(document);
  // Written out by hand: JSON.stringify itself overflows the stack on a value this deep.
  const deep = `"deep":{"type":"dynamic","value":${'['.repeat(deepOutput)}"bottom"${']'.repeat(deepOutput)}}`;
  return Buffer.from(document.replace('"outputs":{', `"outputs":{${deep}`));
}

describe('state version size and depth limits', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());

  async function createWith(name: string, raw: Buffer) {
    const workspace = (await workspaceWithLevels(world, name)).id;
    expect((await platform(world.server, 'POST', `/workspaces/${workspace}/actions/lock`)).status).toBe(200);
    const body = {
      data: { type: 'state-versions', attributes: { serial: 1, lineage: LINEAGE, md5: md5(raw), state: raw.toString('base64') } },
    };
    return { workspace, created: await platform(world.server, 'POST', `/workspaces/${workspace}/state-versions`, { body }) };
  }

  it('stores a state with 5,000 outputs and lists every one', async () => {
    const outputs: Record<string, unknown> = {};
    for (let index = 0; index < 5_000; index++) outputs[`out_${index}`] = { value: index, type: 'number' };
    const { created } = await createWith('many-outputs', state(outputs));
    expect(created.status, JSON.stringify(created.body?.errors)).toBe(201);
    expect(created.body.data.relationships.outputs.data).toHaveLength(5_000);
    const page = await platform(world.server, 'GET', `/state-versions/${created.body.data.id}/outputs?page[size]=100&page[number]=50`);
    expect(page.status).toBe(200);
    expect(page.body.meta.pagination['total-count']).toBe(5_000);
  });

  it('refuses an output nested 4,500 deep with a 422 that states the limit, and stores nothing', async () => {
    const { workspace, created } = await createWith('deep-output', state({}, 4_500));
    expect(created.status, JSON.stringify(created.body)).toBe(422);
    expect(created.body.errors[0]).toMatchObject({ source: { pointer: '/data/attributes/state' } });
    expect(created.body.errors[0].detail).toMatch(/nested deeper than 128 levels/);
    expect((await platform(world.server, 'GET', `/workspaces/${workspace}/current-state-version`)).status).toBe(404);
  });

  it('accepts a state nested exactly to the limit', async () => {
    // The value's innermost array sits 3 levels below the document (outputs → deep → value).
    const { created } = await createWith('deep-but-fine', state({}, 125));
    expect(created.status, JSON.stringify(created.body?.errors)).toBe(201);
  });
});
