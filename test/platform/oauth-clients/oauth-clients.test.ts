import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, platform, startServer, type TestServer } from '../../helpers/app.js';

let server: TestServer;
const ORG = 'understudy';
const OTHER = 'vcs-other';

// The key pair go-tfe's tests send: armoured, but not keys that parse.
const PUBLIC_KEY =
  '\n-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAoKizy4xbN6qZFAwIJV24\n-----END PUBLIC KEY-----\n';
const PRIVATE_KEY =
  '\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEAoKizy4xbN6qZFAwIJV24liz/vYBSvR3SjEiUzhpp0uMAmICN\n-----END RSA PRIVATE KEY-----\n';

beforeAll(async () => {
  server = await startServer();
  const other = await platform(server, 'POST', '/organizations', {
    body: { data: { type: 'organizations', attributes: { name: OTHER, email: 'owners@vcs-other.test' } } },
  });
  expect(other.status).toBe(201);
});
afterAll(() => server.close());

/** OAuthClientCreateOptions as go-tfe marshals it: `name` is always sent (null when unset), the rest omitempty. */
const create = (attributes: Record<string, unknown>, relationships?: Record<string, unknown>, token?: string, org = ORG) =>
  platform(server, 'POST', `/organizations/${org}/oauth-clients`, {
    body: { data: { type: 'oauth-clients', attributes: { name: null, ...attributes }, ...(relationships ? { relationships } : {}) } },
    ...(token ? { token } : {}),
  });
const github = {
  'service-provider': 'github',
  'http-url': 'https://github.com',
  'api-url': 'https://api.github.com',
  'oauth-token-string': 'ghp-secret-string',
};
const bbdc = (extra: Record<string, unknown> = {}) => ({
  'service-provider': 'bitbucket_data_center',
  'http-url': 'https://bbdc.com',
  'api-url': 'https://bbdc.com',
  ...extra,
});
const update = (id: string, attributes: Record<string, unknown>, relationships?: Record<string, unknown>, token?: string) =>
  platform(server, 'PATCH', `/oauth-clients/${id}`, {
    body: { data: { type: 'oauth-clients', attributes, ...(relationships ? { relationships } : {}) } },
    ...(token ? { token } : {}),
  });
const read = (id: string, query = '') => platform(server, 'GET', `/oauth-clients/${id}${query}`);
const project = async (name: string, org = ORG) => {
  const created = await platform(server, 'POST', `/organizations/${org}/projects`, {
    body: { data: { type: 'projects', attributes: { name } } },
  });
  expect(created.status).toBe(201);
  return created.body.data.id as string;
};
const pool = async (name: string, org = ORG) => {
  const created = await platform(server, 'POST', `/organizations/${org}/agent-pools`, {
    body: { data: { type: 'agent-pools', attributes: { name } } },
  });
  expect(created.status).toBe(201);
  return created.body.data.id as string;
};
const projects = (...ids: string[]) => ({ projects: { data: ids.map((id) => ({ id, type: 'projects' })) } });
const pointerOf = (response: { body: { errors: { source: { pointer: string } }[] } }) => response.body.errors[0]?.source.pointer;

/** A member of the organization with no team flags: can read it, cannot manage VCS settings. */
async function memberToken(): Promise<string> {
  const team = await platform(server, 'POST', `/organizations/${ORG}/teams`, {
    body: { data: { type: 'teams', attributes: { name: `vcs-readers-${Date.now()}` } } },
  });
  const token = await platform(server, 'POST', `/teams/${team.body.data.id}/authentication-token`, {
    body: { data: { type: 'authentication-tokens' } },
  });
  return token.body.data.attributes.token as string;
}

describe('OAuth clients', () => {
  it('creates a connection with every attribute the Go client reads, and reads it back identically', async () => {
    const created = await create(github);
    expect(created.status).toBe(201);
    const data = created.body.data;
    expect(data.id).toMatch(/^oc-/);
    expect(data.attributes).toMatchObject({
      name: null,
      'service-provider': 'github',
      'service-provider-display-name': 'GitHub',
      'http-url': 'https://github.com',
      'api-url': 'https://api.github.com',
      key: null,
      'rsa-public-key': null,
      'organization-scoped': true,
    });
    expect(data.attributes['callback-url']).toMatch(new RegExp(`^${server.baseUrl}/auth/[0-9a-f-]{36}/callback$`));
    expect(data.attributes['connect-path']).toMatch(/^\/auth\/[0-9a-f-]{36}\?organization_id=/);
    expect(data.relationships.organization.data).toEqual({ id: ORG, type: 'organizations' });
    expect(data.relationships['oauth-tokens'].data).toHaveLength(1);
    expect(data.relationships.projects.data).toEqual([]);
    expect(data.relationships['agent-pool'].data).toBeNull();
    // Write-only values never come back.
    expect(JSON.stringify(created.body)).not.toContain('ghp-secret-string');
    expect((await read(data.id)).body.data).toEqual(data);
  });

  it('refuses a body that breaks a rule with a 422 naming the attribute, and stores nothing', async () => {
    const before = (await platform(server, 'GET', `/organizations/${ORG}/oauth-clients`)).body.data.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ ...github, 'service-provider': 'sourceforge' }, '/data/attributes/service-provider'],
      [{ ...github, 'service-provider': undefined }, '/data/attributes/service-provider'],
      [{ ...github, 'http-url': undefined }, '/data/attributes/http-url'],
      [{ ...github, 'organization-scoped': 'yes' }, '/data/attributes/organization-scoped'],
      [{ ...github, key: 7 }, '/data/attributes/key'],
    ];
    for (const [attributes, pointer] of cases) {
      const refused = await create(attributes);
      expect([refused.status, pointerOf(refused)], JSON.stringify(attributes)).toEqual([422, pointer]);
    }
    const badPool = await create(github, { 'agent-pool': { data: { id: 'apool-missing', type: 'agent-pools' } } });
    expect([badPool.status, pointerOf(badPool)]).toEqual([422, '/data/relationships/agent-pool/data/id']);
    expect(badPool.body.errors[0].detail).toContain('the provided agent pool does not exist or you are not authorized to use it');
    expect((await platform(server, 'GET', `/organizations/${ORG}/oauth-clients`)).body.data).toHaveLength(before);
  });

  describe('the Bitbucket Data Center key pair', () => {
    it('keeps key and rsa-public-key, never the secret, and updates the key alone (TestOAuthClientsUpdate_rsaKeyPair)', async () => {
      const created = await create(bbdc({ key: 'original-key', secret: PRIVATE_KEY, 'rsa-public-key': PUBLIC_KEY }));
      expect(created.status).toBe(201);
      expect(created.body.data.attributes).toMatchObject({ key: 'original-key', 'rsa-public-key': PUBLIC_KEY });
      expect(created.body.data.attributes['service-provider-display-name']).toBe('Bitbucket Data Center');
      expect(JSON.stringify(created.body)).not.toContain('RSA PRIVATE KEY');

      const id = created.body.data.id as string;
      const renamed = await update(id, { key: 'new-key' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.data.attributes).toMatchObject({
        key: 'new-key',
        'rsa-public-key': PUBLIC_KEY,
        'service-provider': 'bitbucket_data_center',
      });

      const blank = await update(id, { key: '' });
      expect([blank.status, pointerOf(blank)]).toEqual([422, '/data/attributes/key']);
      expect(blank.body.errors[0].detail).toBe('The Consumer Key for Bitbucket Data Center must be present. Please add a value for `key`.');
      expect((await read(id)).body.data.attributes.key).toBe('new-key');
    });

    it('takes the public key and the secret together, and a pair needs the consumer key', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ key: 'k', 'rsa-public-key': PUBLIC_KEY }, '/data/attributes/secret'],
        [{ key: 'k', secret: PRIVATE_KEY }, '/data/attributes/rsa-public-key'],
        [{ secret: PRIVATE_KEY, 'rsa-public-key': PUBLIC_KEY }, '/data/attributes/key'],
      ];
      for (const [extra, pointer] of cases) {
        const refused = await create(bbdc(extra));
        expect([refused.status, pointerOf(refused)], JSON.stringify(extra)).toEqual([422, pointer]);
      }
      const bitbucketServer = await create({
        ...bbdc({ key: 'k', secret: PRIVATE_KEY, 'rsa-public-key': PUBLIC_KEY }),
        'service-provider': 'bitbucket_server',
      });
      expect(bitbucketServer.status).toBe(201);
      // Dropping the public key leaves the secret without its pair.
      const dropPublic = await update(bitbucketServer.body.data.id, { 'rsa-public-key': '' });
      expect([dropPublic.status, pointerOf(dropPublic)]).toEqual([422, '/data/attributes/rsa-public-key']);
      expect(dropPublic.body.errors[0].detail).toContain('Bitbucket Server');
      expect((await read(bitbucketServer.body.data.id)).body.data.attributes['rsa-public-key']).toBe(PUBLIC_KEY);
      // Other providers do not use a public key: it is not kept.
      const other = await create({ ...github, 'rsa-public-key': PUBLIC_KEY });
      expect(other.body.data.attributes['rsa-public-key']).toBeNull();
    });

    it('creates one without a key pair and flips organization-scoped (TestOAuthClientsUpdate)', async () => {
      const created = await create(bbdc({ 'organization-scoped': true }));
      expect(created.status).toBe(201);
      const changed = await update(created.body.data.id, { 'organization-scoped': false });
      expect(changed.status).toBe(200);
      expect(changed.body.data.attributes['organization-scoped']).toBe(false);
      expect((await read(created.body.data.id)).body.data.attributes['organization-scoped']).toBe(false);
    });
  });

  it('updates name and agent pool; null clears them, and an unknown pool changes nothing', async () => {
    const [first, second, foreign] = await Promise.all([pool('vcs-pool-1'), pool('vcs-pool-2'), pool('vcs-foreign', OTHER)]);
    const created = await create({ ...github, name: 'origin' }, { 'agent-pool': { data: { id: first, type: 'agent-pools' } } });
    expect(created.body.data.relationships['agent-pool'].data).toEqual({ id: first, type: 'agent-pools' });
    const id = created.body.data.id as string;

    const moved = await update(id, { name: 'renamed' }, { 'agent-pool': { data: { id: second, type: 'agent-pools' } } });
    expect(moved.status).toBe(200);
    expect(moved.body.data.attributes.name).toBe('renamed');
    expect(moved.body.data.relationships['agent-pool'].data).toEqual({ id: second, type: 'agent-pools' });

    const refused = await update(id, { name: 'not-stored' }, { 'agent-pool': { data: { id: foreign, type: 'agent-pools' } } });
    expect([refused.status, pointerOf(refused)]).toEqual([422, '/data/relationships/agent-pool/data/id']);
    const after = (await read(id)).body.data;
    expect(after.attributes.name).toBe('renamed');
    expect(after.relationships['agent-pool'].data.id).toBe(second);

    const cleared = await update(id, { name: null }, { 'agent-pool': { data: null } });
    expect(cleared.body.data.attributes.name).toBeNull();
    expect(cleared.body.data.relationships['agent-pool'].data).toBeNull();
    // Absent attributes stay: a PATCH of nothing leaves every attribute as it was.
    const untouched = await update(id, {});
    expect(untouched.body.data.attributes).toEqual(cleared.body.data.attributes);
    // A deleted pool leaves the connection.
    await update(id, {}, { 'agent-pool': { data: { id: first, type: 'agent-pools' } } });
    expect((await platform(server, 'DELETE', `/agent-pools/${first}`)).status).toBe(204);
    expect((await read(id)).body.data.relationships['agent-pool'].data).toBeNull();
  });

  it('attaches and detaches projects (AddProjects, RemoveProjects, include=projects, PATCH replaces)', async () => {
    const [one, two, three, foreign] = await Promise.all([
      project('vcs-one'),
      project('vcs-two'),
      project('vcs-three'),
      project('vcs-x', OTHER),
    ]);
    const created = await create(github, projects(one));
    expect(created.body.data.relationships.projects.data).toEqual([{ id: one, type: 'projects' }]);
    const id = created.body.data.id as string;
    const path = `/oauth-clients/${id}/relationships/projects`;
    const ids = async () =>
      ((await read(id, '?include=projects')).body.data.relationships.projects.data as { id: string }[]).map((p) => p.id).sort();

    // go-tfe sends whole project nodes; only their ids count.
    const added = await platform(server, 'POST', path, {
      body: {
        data: [
          { type: 'projects', id: two, attributes: { name: 'vcs-two' } },
          { type: 'projects', id: three },
        ],
      },
    });
    expect(added.status).toBe(204);
    expect(await ids()).toEqual([one, two, three].sort());

    const wrong = await platform(server, 'POST', path, { body: { data: [{ type: 'projects', id: foreign }] } });
    expect([wrong.status, pointerOf(wrong)]).toEqual([422, '/data/0']);
    const wrongType = await platform(server, 'POST', path, { body: { data: [{ type: 'workspaces', id: one }] } });
    expect(wrongType.status).toBe(422);

    const removed = await platform(server, 'DELETE', path, {
      body: {
        data: [
          { type: 'projects', id: one },
          { type: 'projects', id: two },
        ],
      },
    });
    expect(removed.status).toBe(204);
    expect(await ids()).toEqual([three]);

    const replaced = await update(id, {}, projects(one, two));
    expect(replaced.body.data.relationships.projects.data.map((p: { id: string }) => p.id).sort()).toEqual([one, two].sort());
    const refused = await update(id, {}, projects(three, foreign));
    expect([refused.status, pointerOf(refused)]).toEqual([422, '/data/relationships/projects/data/1']);
    expect(await ids()).toEqual([one, two].sort());
    expect((await update(id, {}, projects())).body.data.relationships.projects.data).toEqual([]);

    // A deleted project leaves the connection.
    await platform(server, 'POST', path, { body: { data: [{ type: 'projects', id: three }] } });
    expect((await platform(server, 'DELETE', `/projects/${three}`)).status).toBe(204);
    expect(await ids()).toEqual([]);
  });

  it('lists every connection without page parameters, pages with them, and includes tokens', async () => {
    const all = await platform(server, 'GET', `/organizations/${ORG}/oauth-clients`);
    expect(all.status).toBe(200);
    expect(all.body.data.length).toBeGreaterThan(3);
    expect(all.body.meta).toBeUndefined();
    for (const client of all.body.data) expect(client.relationships['oauth-tokens'].data).toHaveLength(1);

    const paged = await platform(server, 'GET', `/organizations/${ORG}/oauth-clients?page%5Bsize%5D=2&page%5Bnumber%5D=2`);
    expect(paged.body.data).toEqual(all.body.data.slice(2, 4));
    expect(paged.body.meta.pagination).toMatchObject({ 'current-page': 2, 'total-count': all.body.data.length });

    const withTokens = await platform(server, 'GET', `/organizations/${ORG}/oauth-clients?include=oauth_tokens`);
    expect(withTokens.body.included.map((token: { type: string }) => token.type)).toEqual(all.body.data.map(() => 'oauth-tokens'));
    expect((await platform(server, 'GET', `/organizations/${ORG}/oauth-clients?include=owners`)).status).toBe(400);
  });

  it('deletes a connection with its token; a second delete is a 404', async () => {
    const created = await create(github);
    const id = created.body.data.id as string;
    const tokenId = created.body.data.relationships['oauth-tokens'].data[0].id as string;
    expect((await platform(server, 'DELETE', `/oauth-clients/${id}`)).status).toBe(204);
    expect((await read(id)).status).toBe(404);
    expect((await platform(server, 'GET', `/oauth-tokens/${tokenId}`)).status).toBe(404);
    expect((await platform(server, 'DELETE', `/oauth-clients/${id}`)).status).toBe(404);
  });

  it('hides connections from members without VCS management: the 404 of a missing one, and nothing changes', async () => {
    const token = await memberToken();
    const created = await create({ ...github, name: 'owned' });
    const id = created.body.data.id as string;
    expect((await create(github, undefined, token)).status).toBe(404);
    expect((await platform(server, 'GET', `/organizations/${ORG}/oauth-clients`, { token })).status).toBe(404);
    expect((await platform(server, 'GET', `/oauth-clients/${id}`, { token })).status).toBe(404);
    expect((await update(id, { name: 'taken' }, undefined, token)).status).toBe(404);
    expect((await platform(server, 'POST', `/oauth-clients/${id}/relationships/projects`, { token, body: { data: [] } })).status).toBe(404);
    expect((await platform(server, 'DELETE', `/oauth-clients/${id}`, { token })).status).toBe(404);
    expect((await read(id)).body.data.attributes.name).toBe('owned');
  });

  describe('OAuth tokens', () => {
    it("lists an organization's tokens as go-tfe compares them: id, has-ssh-key false, no uid", async () => {
      const created = await create(github, undefined, undefined, OTHER);
      const tokenId = created.body.data.relationships['oauth-tokens'].data[0].id as string;
      const listed = await platform(server, 'GET', `/organizations/${OTHER}/oauth-tokens`);
      expect(listed.status).toBe(200);
      const token = listed.body.data.find((item: { id: string }) => item.id === tokenId);
      expect(token.type).toBe('oauth-tokens');
      expect(token.attributes['has-ssh-key']).toBe(false);
      expect(token.attributes.uid).toBeUndefined();
      expect(token.relationships['oauth-client'].data).toEqual({ id: created.body.data.id, type: 'oauth-clients' });
      expect(
        (await platform(server, 'GET', `/organizations/${OTHER}/oauth-tokens?page%5Bsize%5D=1`)).body.meta.pagination['total-count'],
      ).toBe(listed.body.data.length);
      expect((await platform(server, 'GET', `/organizations/${OTHER}/oauth-tokens`, { token: await memberToken() })).status).toBe(404);
    });

    it('takes a private SSH key (PEM or OpenSSH) and shows only has-ssh-key; an invalid one is a 422 that changes nothing', async () => {
      const created = await create(github);
      const tokenId = created.body.data.relationships['oauth-tokens'].data[0].id as string;
      const patch = (attributes: Record<string, unknown>) =>
        platform(server, 'PATCH', `/oauth-tokens/${tokenId}`, { body: { data: { type: 'oauth-tokens', attributes } } });

      const nothing = await patch({});
      expect([nothing.status, nothing.body.data.attributes['has-ssh-key']]).toEqual([200, false]);
      const invalid = await patch({ 'ssh-key': 'not-a-key' });
      expect([invalid.status, pointerOf(invalid)]).toEqual([422, '/data/attributes/ssh-key']);
      expect(invalid.body.errors[0].detail).toContain('Ssh key is invalid');
      const armouredJunk = await patch({
        'ssh-key': '-----BEGIN OPENSSH PRIVATE KEY-----\nbm90IGEga2V5\n-----END OPENSSH PRIVATE KEY-----',
      });
      expect(armouredJunk.status).toBe(422);
      expect((await platform(server, 'GET', `/oauth-tokens/${tokenId}`)).body.data.attributes['has-ssh-key']).toBe(false);

      const pem = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'sec1', format: 'pem' }).toString();
      const set = await patch({ 'ssh-key': pem });
      expect([set.status, set.body.data.attributes['has-ssh-key']]).toEqual([200, true]);
      expect(JSON.stringify(set.body)).not.toContain('PRIVATE KEY');
      const openssh = Buffer.concat([Buffer.from('openssh-key-v1\0', 'latin1'), randomBytes(64)]).toString('base64');
      const other = await patch({ 'ssh-key': `-----BEGIN OPENSSH PRIVATE KEY-----\n${openssh}\n-----END OPENSSH PRIVATE KEY-----\n` });
      expect(other.status).toBe(200);
      // The journal keeps none of a body that carries a key.
      const journal = (await control(server, 'GET', `/requests?method=PATCH&path=/api/v2/oauth-tokens/${tokenId}`)).body;
      expect(journal.requests.length).toBeGreaterThanOrEqual(3);
      expect(JSON.stringify(journal)).not.toContain('PRIVATE KEY');
    });

    it('deletes a token: it is gone, the connection stays; a second delete is a 404; members get 404', async () => {
      const created = await create(github);
      const tokenId = created.body.data.relationships['oauth-tokens'].data[0].id as string;
      expect((await platform(server, 'DELETE', `/oauth-tokens/${tokenId}`, { token: await memberToken() })).status).toBe(404);
      expect((await platform(server, 'DELETE', `/oauth-tokens/${tokenId}`)).status).toBe(204);
      expect((await platform(server, 'GET', `/oauth-tokens/${tokenId}`)).status).toBe(404);
      expect((await platform(server, 'DELETE', `/oauth-tokens/${tokenId}`)).status).toBe(404);
      expect((await read(created.body.data.id)).body.data.relationships['oauth-tokens'].data).toEqual([]);
    });
  });
});
