import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { control, platform, startServer, type TestServer } from '../../helpers/app.js';

let server: TestServer;
let poolId: string;
const ORG = 'understudy';

beforeAll(async () => {
  server = await startServer();
  const pool = await platform(server, 'POST', `/organizations/${ORG}/agent-pools`, {
    body: { data: { type: 'agent-pools', attributes: { name: 'runners' } } },
  });
  poolId = pool.body.data.id;
});
afterAll(async () => server.close());

/** What an agent sends: its pool's agent token as a bearer, plain JSON. */
const agentCall = (path: string, token: string | null, body: unknown) =>
  fetch(`${server.baseUrl}/api/agent${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });

// go-tfe's AgentTokenCreateOptions: type `agent-tokens`, a description.
const createToken = (description: unknown) =>
  platform(server, 'POST', `/agent-pools/${poolId}/authentication-tokens`, {
    body: { data: { type: 'agent-tokens', attributes: { description } } },
  });

describe('agent tokens', () => {
  it('creates, lists, reads and deletes them; the secret appears only at creation', async () => {
    const made = await createToken('ci runners');
    expect(made.status).toBe(201);
    expect(made.body.data.type).toBe('authentication-tokens');
    expect(made.body.data.attributes).toMatchObject({ description: 'ci runners', 'last-used-at': null });
    expect(made.body.data.attributes.token).toEqual(expect.any(String));
    expect(made.body.data.attributes['created-at']).toMatch(/Z$/);
    await createToken('second');

    const list = await platform(server, 'GET', `/agent-pools/${poolId}/authentication-tokens`);
    expect(list.body.meta.pagination).toMatchObject({ 'current-page': 1, 'total-count': 2 });
    expect(list.body.data.every((token: { attributes: { token: unknown } }) => token.attributes.token === null)).toBe(true);
    const read = await platform(server, 'GET', `/authentication-tokens/${made.body.data.id}`);
    expect(read.body.data).toEqual({ ...made.body.data, attributes: { ...made.body.data.attributes, token: null } });

    expect((await platform(server, 'DELETE', `/authentication-tokens/${made.body.data.id}`)).status).toBe(204);
    expect((await platform(server, 'GET', `/authentication-tokens/${made.body.data.id}`)).status).toBe(404);
    const refused = await agentCall('/register', made.body.data.attributes.token, { name: 'late' });
    expect(refused.status).toBe(401);
  });

  it('refuses a blank description with its pointer, an unknown pool with 404, and is not an API token', async () => {
    const blank = await createToken('');
    expect([blank.status, blank.body.errors[0].source.pointer]).toEqual([422, '/data/attributes/description']);
    expect((await createToken(5)).status).toBe(422);
    const unknown = await platform(server, 'POST', '/agent-pools/apool-nope/authentication-tokens', {
      body: { data: { type: 'agent-tokens', attributes: { description: 'x' } } },
    });
    expect(unknown.status).toBe(404);
    const made = await createToken('not for the API');
    expect((await platform(server, 'GET', `/organizations/${ORG}`, { token: made.body.data.attributes.token })).status).toBe(401);
  });
});

describe('agents', () => {
  it('registers with an agent token, lists and reads as go-tfe does, and goes unknown when it stops pinging', async () => {
    const token = (await createToken('agents')).body.data.attributes.token as string;
    const registered = await agentCall('/register', token, { name: 'test-agent' });
    expect(registered.status).toBe(201);
    const { agent_id: agentId } = (await registered.json()) as { agent_id: string };

    const list = await platform(server, 'GET', `/agent-pools/${poolId}/agents`);
    expect(list.body.data.map((agent: { id: string }) => agent.id)).toEqual([agentId]);
    const read = await platform(server, 'GET', `/agents/${agentId}`);
    expect(read.body.data.type).toBe('agents');
    expect(read.body.data.attributes).toMatchObject({ name: 'test-agent', status: 'idle', 'ip-address': '127.0.0.1' });
    expect(read.body.data.attributes['last-ping-at']).toMatch(/Z$/);

    const busy = await agentCall(`/agents/${agentId}/status`, token, { status: 'busy' });
    expect(busy.status).toBe(200);
    expect((await platform(server, 'GET', `/agents/${agentId}`)).body.data.attributes.status).toBe('busy');
    const since = new Date(Date.parse(read.body.data.attributes['last-ping-at']) + 60_000).toISOString();
    const filtered = await platform(server, 'GET', `/agent-pools/${poolId}/agents?filter%5Blast-ping-since%5D=${since}`);
    expect(filtered.body.data).toEqual([]);

    await control(server, 'POST', '/clock', { advance: '5m' });
    expect((await platform(server, 'GET', `/agents/${agentId}`)).body.data.attributes.status).toBe('unknown');
    expect((await agentCall(`/agents/${agentId}/status`, token, { status: 'sleeping' })).status).toBe(422);
    expect((await agentCall('/register', 'not-a-token', {})).status).toBe(401);
    expect((await platform(server, 'GET', '/agents/agent-nope')).status).toBe(404);
  });
});
