import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { startWorld, workspaceWithLevels, type World } from '../workspaces/world.js';
import { md5 } from './state-file.js';

const LINEAGE = '0d1c8a0e-1111-2222-3333-444455556666';

/** A state with root and module resources, `count` and `for_each` instances, and a data source. */
function stateWithResources(serial: number): Buffer {
  const instance = (index_key?: number | string) => ({
    ...(index_key === undefined ? {} : { index_key }),
    schema_version: 0,
    attributes: {},
  });
  return Buffer.from(
    JSON.stringify({
      version: 4,
      terraform_version: '1.9.0',
      serial,
      lineage: LINEAGE,
      outputs: {},
      resources: [
        {
          mode: 'managed',
          type: 'random_pet',
          name: 'animal',
          provider: 'provider["registry.terraform.io/hashicorp/random"]',
          instances: [instance()],
        },
        {
          module: 'module.media_bucket',
          mode: 'managed',
          type: 'aws_s3_bucket_public_access_block',
          name: 'this',
          provider: 'provider["registry.terraform.io/hashicorp/aws"]',
          instances: [instance(0), instance(1)],
        },
        {
          module: 'module.net.module.subnets',
          mode: 'managed',
          type: 'aws_subnet',
          name: 'private',
          provider: 'provider["registry.terraform.io/hashicorp/aws"].west',
          instances: [instance('a')],
        },
        {
          mode: 'data',
          type: 'aws_caller_identity',
          name: 'me',
          provider: 'provider["registry.terraform.io/hashicorp/aws"]',
          instances: [instance()],
        },
      ],
    }),
  );
}

for (const edition of ['self-hosted', 'hosted'] as const) {
  describe(`workspace resources (${edition})`, () => {
    let world: World;
    let workspace: string;
    beforeAll(async () => {
      world = await startWorld(edition === 'hosted' ? { UNDERSTUDY_EDITION: 'hosted' } : {});
      workspace = (await workspaceWithLevels(world, 'resourceful')).id;
    });
    afterAll(() => world.close());
    const list = (query = '', token?: string) =>
      platform(world.server, 'GET', `/workspaces/${workspace}/resources${query}`, { ...(token ? { token } : {}) });

    it('is empty before the first state, then lists the current state resource instances', async () => {
      const empty = await list();
      expect(empty.status).toBe(200);
      expect(empty.body.data).toEqual([]);
      expect(empty.body.meta.pagination['total-count']).toBe(0);

      expect((await platform(world.server, 'POST', `/workspaces/${workspace}/actions/lock`)).status).toBe(200);
      const state = stateWithResources(1);
      const created = await platform(world.server, 'POST', `/workspaces/${workspace}/state-versions`, {
        body: {
          data: { type: 'state-versions', attributes: { serial: 1, lineage: LINEAGE, md5: md5(state), state: state.toString('base64') } },
        },
      });
      expect(created.status).toBe(201);
      expect((await platform(world.server, 'POST', `/workspaces/${workspace}/actions/unlock`)).status).toBe(200);

      const all = await list();
      expect(all.status).toBe(200);
      expect(all.body.meta.pagination['total-count']).toBe(4);
      expect(all.body.data.map((item: { attributes: object }) => item.attributes)).toEqual(
        [
          ['random_pet.animal', 'animal', 'root', 'hashicorp/random', 'random_pet', null],
          [
            'media_bucket.aws_s3_bucket_public_access_block.this[0]',
            'this',
            'media_bucket',
            'hashicorp/aws',
            'aws_s3_bucket_public_access_block',
            '0',
          ],
          [
            'media_bucket.aws_s3_bucket_public_access_block.this[1]',
            'this',
            'media_bucket',
            'hashicorp/aws',
            'aws_s3_bucket_public_access_block',
            '1',
          ],
          ['net.subnets.aws_subnet.private["a"]', 'private', 'net.subnets', 'hashicorp/aws', 'aws_subnet', 'a'],
        ].map(([address, name, module, provider, type, index]) => ({
          address,
          name,
          module,
          provider,
          'provider-type': type,
          'name-index': index,
          'modified-by-state-version-id': created.body.data.id,
          'created-at': expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
          'updated-at': expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        })),
      );
      expect(all.body.data[0].type).toBe('resources');
      expect(all.body.data[0].id).toMatch(/^wsr-/);

      const second = await list('?page[size]=2&page[number]=2');
      expect(second.body.data.map((item: { id: string }) => item.id)).toEqual(
        all.body.data.slice(2).map((item: { id: string }) => item.id),
      );
      const beyond = await list('?page[size]=100&page[number]=999');
      expect(beyond.body.data).toEqual([]);
      expect(beyond.body.meta.pagination).toMatchObject({ 'current-page': 999, 'total-count': 4 });
      expect((await list('?page[size]=abc')).status).toBe(400);
    });

    it('is readable by whoever reads the state; others get 404', async () => {
      expect((await list('', world.principals['wsread'])).status).toBe(200);
      expect((await list('', world.principals['member'])).status).toBe(404);
      expect((await list('', world.principals['outsider'])).status).toBe(404);
      expect((await platform(world.server, 'GET', '/workspaces/ws-missing/resources')).status).toBe(404);
    });
  });
}
