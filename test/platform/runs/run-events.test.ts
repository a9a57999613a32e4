import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { createRun, newWorkspace, simpleConfig, uploadConfiguration } from './helpers.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_RUN_PROGRESSION: 'manual' });
});
afterAll(async () => server.close());

interface Resource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships: Record<string, { data: { id: string; type: string } | null }>;
}

describe('run events', () => {
  it('record a comment as a `commented` event that names the comment and its actor, both includable', async () => {
    const ws = await newWorkspace(server, 'run-events-comment');
    await uploadConfiguration(server, ws, simpleConfig('hi'));
    const created = await createRun(server, ws);
    const runId = created.body.data.id as string;
    const commented = await platform(server, 'POST', `/runs/${runId}/comments`, {
      body: { data: { type: 'comments', attributes: { body: 'Test comment' } } },
    });
    expect(commented.status).toBe(201);
    const commentId = commented.body.data.id as string;

    const plain = await platform(server, 'GET', `/runs/${runId}/run-events`);
    const event = (plain.body.data as Resource[]).find((item) => item.attributes.action === 'commented');
    expect(event?.relationships.comment!.data).toEqual({ id: commentId, type: 'comments' });
    const actorId = event?.relationships.actor!.data?.id;
    expect(actorId).toBeTruthy();
    expect(plain.body.included).toBeUndefined();

    const withIncludes = await platform(server, 'GET', `/runs/${runId}/run-events?include=actor%2Ccomment`);
    const included = withIncludes.body.included as Resource[];
    const comment = included.find((item) => item.type === 'comments' && item.id === commentId);
    expect(comment?.attributes.body).toBe('Test comment');
    const actor = included.find((item) => item.type === 'users' && item.id === actorId);
    expect(actor?.attributes.username).toBeTruthy();

    const shown = await platform(server, 'GET', `/run-events/${event!.id}?include=comment`);
    expect(shown.body.included).toEqual([expect.objectContaining({ id: commentId, type: 'comments' })]);
    const back = await platform(server, 'GET', `/comments/${commentId}`);
    expect(back.body.data.relationships['run-event'].data).toEqual({ id: event!.id, type: 'run-events' });
  });

  it('run lists include their workspace, plan, apply, creator and configuration version', async () => {
    const ws = await newWorkspace(server, 'run-list-includes');
    const cv = await uploadConfiguration(server, ws, simpleConfig('hi'));
    const created = await createRun(server, ws);
    const listed = await platform(
      server,
      'GET',
      `/workspaces/${ws}/runs?include=workspace%2Cplan%2Capply%2Ccreated_by%2Cconfiguration_version`,
    );
    expect(listed.status).toBe(200);
    const run = (listed.body.data as Resource[]).find((item) => item.id === created.body.data.id)!;
    const included = listed.body.included as Resource[];
    const has = (type: string, id: string | undefined) => included.some((item) => item.type === type && item.id === id);
    expect(has('workspaces', ws)).toBe(true);
    expect(has('configuration-versions', cv)).toBe(true);
    expect(has('plans', run.relationships.plan!.data?.id)).toBe(true);
    expect(has('applies', run.relationships.apply!.data?.id)).toBe(true);
    expect(has('users', run.relationships['created-by']!.data?.id)).toBe(true);
  });

  it('refuses an unknown include with the 400 clients match on', async () => {
    const ws = await newWorkspace(server, 'run-events-include');
    await uploadConfiguration(server, ws, simpleConfig('hi'));
    const created = await createRun(server, ws);
    const refused = await platform(server, 'GET', `/runs/${created.body.data.id}/run-events?include=users`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].detail).toContain('include parameter');
  });
});
