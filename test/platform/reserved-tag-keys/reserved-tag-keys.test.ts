import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';

let server: TestServer;
const ORG = 'understudy';

beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => server.close());

// ReservedTagKeyCreateOptions as go-tfe marshals it (disable-overrides omitted when unset).
const create = (attributes: Record<string, unknown>) =>
  platform(server, 'POST', `/organizations/${ORG}/reserved-tag-keys`, { body: { data: { type: 'reserved-tag-keys', attributes } } });
const update = (id: string, attributes: Record<string, unknown>) =>
  platform(server, 'PATCH', `/reserved-tag-keys/${id}`, { body: { data: { type: 'reserved-tag-keys', attributes } } });

describe('reserved tag keys', () => {
  it('creates, lists, updates and deletes, with the real timestamps spelling', async () => {
    const made = await create({ key: 'cost-center', 'disable-overrides': true });
    expect(made.status).toBe(201);
    expect(made.body.data.type).toBe('reserved-tag-keys');
    expect(made.body.data.attributes).toMatchObject({ key: 'cost-center', 'disable-overrides': true });
    expect(made.body.data.attributes.created_at).toMatch(/Z$/);
    const plain = await create({ key: 'env' });
    expect(plain.body.data.attributes['disable-overrides']).toBe(false);

    const list = await platform(server, 'GET', `/organizations/${ORG}/reserved-tag-keys`);
    expect(list.body.data).toEqual([made.body.data, plain.body.data]);
    expect(list.body.meta.pagination).toMatchObject({ 'current-page': 1, 'total-count': 2 });

    const changed = await update(made.body.data.id, { key: 'cost-centre', 'disable-overrides': false });
    expect(changed.body.data.id).toBe(made.body.data.id);
    expect(changed.body.data.attributes).toMatchObject({ key: 'cost-centre', 'disable-overrides': false });
    expect((await platform(server, 'DELETE', `/reserved-tag-keys/${made.body.data.id}`)).status).toBe(204);
    expect((await platform(server, 'DELETE', `/reserved-tag-keys/${made.body.data.id}`)).status).toBe(404);
  });

  it('answers the real 422s: taken, invalid, blank; an unknown organization is 404', async () => {
    await create({ key: 'owner' });
    const taken = await create({ key: 'owner' });
    expect([taken.status, taken.body.errors[0].title, taken.body.errors[0].detail]).toEqual([
      422,
      'invalid attribute',
      'Key has already been taken',
    ]);
    const invalid = await create({ key: '! / nope' });
    expect([invalid.body.errors[0].detail, invalid.body.errors[0].source.pointer]).toEqual(['Key is invalid', '/data/attributes/key']);
    expect((await create({ 'disable-overrides': true })).status).toBe(422);
    expect((await create({ key: 'k', 'disable-overrides': 'yes' })).status).toBe(422);
    const other = await create({ key: 'team' });
    const renameToTaken = await update(other.body.data.id, { key: 'owner' });
    expect(renameToTaken.body.errors[0].detail).toBe('Key has already been taken');
    expect((await update(other.body.data.id, { key: '! / nope' })).body.errors[0].detail).toBe('Key is invalid');
    const unknown = await platform(server, 'POST', '/organizations/nope/reserved-tag-keys', {
      body: { data: { type: 'reserved-tag-keys', attributes: { key: 'x' } } },
    });
    expect(unknown.status).toBe(404);
  });
});
