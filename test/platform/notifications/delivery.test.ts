import { createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { NotificationDispatcher } from '../../../src/platform/notifications/delivery.js';
import { findRun, type RunRow } from '../../../src/platform/runs/repo.js';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { patchSettings } from '../admin/helpers.js';
import { action, control, createRun, newWorkspace, simpleConfig, uploadConfiguration } from '../runs/helpers.js';
import { deadUrl, startReceiver, startSilentReceiver, type Receiver } from './receiver.js';

/**
 * The delivery timeout. Not a pacing: the receivers that answer must always beat it, on a busy
 * machine too, and the silent receiver's delivery must still be pending while the test reads its
 * (empty) responses after the request arrived; only the silent test waits it out. 1 s was short
 * enough for a slow answer to lose.
 */
const TIMEOUT_MS = 5_000;

describe('delivering run notifications', () => {
  let server: TestServer;
  let dispatcher: NotificationDispatcher;
  let generic: Receiver;
  let slack: Receiver;
  let teams: Receiver;
  let ws: string;
  let run: RunRow;

  const configure = async (workspaceId: string, attributes: Record<string, unknown>) => {
    const created = await platform(server, 'POST', `/workspaces/${workspaceId}/notification-configurations`, {
      body: { data: { type: 'notification-configurations', attributes: { enabled: false, ...attributes } } },
    });
    expect(created.status).toBe(201);
    // Enabled afterwards, so the verification message on save does not mix with the deliveries.
    const id = created.body.data.id as string;
    await platform(server, 'PATCH', `/notification-configurations/${id}`, {
      body: { data: { type: 'notification-configurations', attributes: { name: attributes.name } } },
    });
    return id;
  };
  const enable = (id: string, enabled = true) =>
    server.app.runtime.store.sqlite.prepare('UPDATE notification_configurations SET enabled = ? WHERE id = ?').run(enabled ? 1 : 0, id);
  const responsesOf = async (id: string) =>
    (await platform(server, 'GET', `/notification-configurations/${id}`)).body.data.attributes['delivery-responses'];
  const clear = () => [generic, slack, teams].forEach((receiver) => (receiver.received.length = 0));

  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_NOTIFICATION_TIMEOUT_MS: String(TIMEOUT_MS) });
    dispatcher = server.app.platform.services.notifications.dispatcher;
    [generic, slack, teams] = await Promise.all([startReceiver('hook-key'), startReceiver(), startReceiver()]);
    ws = await newWorkspace(server, 'notifying');
    // A run that stays put (manual progression): the transitions below are reported for it.
    expect((await control(server, 'PUT', '/runs/progression', { mode: 'manual', workspace: ws })).status).toBe(200);
    await uploadConfiguration(server, ws, simpleConfig('hi'));
    const created = await createRun(server, ws, { message: 'ship it' });
    expect(created.status).toBe(201);
    run = findRun(server.app.runtime.store.db, created.body.data.id) as RunRow;

    const all = ['run:created', 'run:planning', 'run:needs_attention', 'run:applying', 'run:completed', 'run:errored'];
    enable(await configure(ws, { name: 'generic', 'destination-type': 'generic', url: generic.url, token: 'hook-key', triggers: all }));
    enable(await configure(ws, { name: 'slack', 'destination-type': 'slack', url: slack.url, triggers: ['run:completed'] }));
    enable(await configure(ws, { name: 'teams', 'destination-type': 'microsoft-teams', url: teams.url, triggers: ['run:errored'] }));
    enable(
      await configure(ws, {
        name: 'mail',
        'destination-type': 'email',
        'email-addresses': ['ops@example.test'],
        triggers: ['run:errored'],
      }),
    );
    // Disabled: never called.
    await configure(ws, { name: 'off', 'destination-type': 'slack', url: slack.url, triggers: all });
  });
  afterAll(async () => {
    await Promise.all([generic, slack, teams].map((receiver) => receiver.close()));
    await server.close();
  });
  beforeEach(clear);

  it('notifies a real run from creation to completion, each status change once, in order', async () => {
    const live = await newWorkspace(server, 'live-runs');
    const hook = await startReceiver('live-key');
    const triggers = ['run:created', 'run:planning', 'run:needs_attention', 'run:applying', 'run:completed', 'run:errored'];
    enable(await configure(live, { name: 'live', 'destination-type': 'generic', url: hook.url, token: 'live-key', triggers }));
    const { engine } = server.app.platform.services.runs;
    const cv = await uploadConfiguration(server, live, simpleConfig('live'));
    const created = await createRun(server, live, { message: 'end to end' }, cv);
    expect(created.status).toBe(201);
    const id = created.body.data.id as string;
    await engine.whenSettled(id);
    expect(findRun(server.app.runtime.store.db, id)?.status).toBe('planned');
    expect((await action(server, id, 'apply')).status).toBe(202);
    await engine.whenSettled(id);
    expect(findRun(server.app.runtime.store.db, id)?.status).toBe('applied');
    await dispatcher.idle();
    const seen = hook.received.map((item) => (item.json.notifications as { trigger: string; run_status: string }[])[0]);
    expect(seen).toEqual([
      expect.objectContaining({ trigger: 'run:created', run_status: 'pending' }),
      expect.objectContaining({ trigger: 'run:planning', run_status: 'planning' }),
      expect.objectContaining({ trigger: 'run:needs_attention', run_status: 'planned' }),
      expect.objectContaining({ trigger: 'run:applying', run_status: 'applying' }),
      expect.objectContaining({ trigger: 'run:completed', run_status: 'applied' }),
    ]);
    expect(hook.received.every((item) => item.verified)).toBe(true);
    expect(hook.received[0]?.json.run_url).toBe(`${server.baseUrl}/app/understudy/live-runs/runs/${id}`);
    await hook.close();
  });

  it('posts the signed version-1 payload to a generic destination and records its answer', async () => {
    dispatcher.runTransition({ run, from: 'plan_queued', to: 'planning' });
    await dispatcher.idle();
    expect(generic.received).toHaveLength(1);
    const [delivery] = generic.received;
    // The receiver's own HMAC of the raw body, and the test's, agree with the header.
    expect(delivery?.verified).toBe(true);
    expect(delivery?.headers['x-tfe-notification-signature']).toBe(
      createHmac('sha512', 'hook-key')
        .update(delivery?.body ?? '')
        .digest('hex'),
    );
    expect(delivery?.json).toMatchObject({
      payload_version: 1,
      run_url: `${server.baseUrl}/app/understudy/notifying/runs/${run.id}`,
      run_id: run.id,
      run_message: 'ship it',
      run_created_by: 'admin',
      workspace_id: ws,
      workspace_name: 'notifying',
      organization_name: 'understudy',
    });
    expect(delivery?.json.notifications).toEqual([
      {
        message: 'Run Planning',
        trigger: 'run:planning',
        run_status: 'planning',
        run_updated_at: expect.stringMatching(/Z$/),
        run_updated_by: null,
      },
    ]);
    expect(slack.received).toEqual([]);
    expect(teams.received).toEqual([]);

    const ids = (await platform(server, 'GET', `/workspaces/${ws}/notification-configurations`)).body.data as {
      id: string;
      attributes: { name: string };
    }[];
    const genericId = ids.find((item) => item.attributes.name === 'generic')?.id as string;
    const [response] = await responsesOf(genericId);
    expect(response).toMatchObject({ url: generic.url, code: '200', successful: 'true', body: 'answered 200' });
    expect(response['sent-at']).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });

  it('sends Slack an attachment and Teams a message card, each only for its own triggers', async () => {
    dispatcher.runTransition({ run, from: 'applying', to: 'applied' });
    dispatcher.runTransition({ run, from: 'planning', to: 'errored' });
    await dispatcher.idle();
    expect(slack.received).toHaveLength(1);
    const [attachment] = slack.received[0]?.json.attachments as Record<string, unknown>[];
    expect(attachment).toMatchObject({
      title: run.id,
      title_link: `${server.baseUrl}/app/understudy/notifying/runs/${run.id}`,
      text: 'ship it',
    });
    expect(slack.received[0]?.headers['x-tfe-notification-signature']).toBeUndefined();
    expect(teams.received).toHaveLength(1);
    expect(teams.received[0]?.json).toMatchObject({ '@type': 'MessageCard', title: 'Run Errored' });
    expect(generic.received.map((item) => (item.json.notifications as { trigger: string }[])[0]?.trigger).sort()).toEqual([
      'run:completed',
      'run:errored',
    ]);
    const { messages } = (await control(server, 'GET', '/outbox')).body;
    expect(messages).toContainEqual(
      expect.objectContaining({
        kind: 'mail',
        'delivered-via': 'outbox',
        to: 'ops@example.test',
        subject: 'Run Errored: understudy/notifying',
      }),
    );
  });

  it('maps statuses to triggers: created, needs attention unless auto-applied, canceled as errored', async () => {
    dispatcher.runTransition({ run, from: null, to: 'pending' });
    dispatcher.runTransition({ run, from: 'planning', to: 'planned' });
    dispatcher.runTransition({ run: { ...run, autoApply: true }, from: 'planning', to: 'planned' });
    dispatcher.runTransition({ run, from: 'planned', to: 'discarded' });
    dispatcher.runTransition({ run, from: 'planning', to: 'plan_queued' });
    await dispatcher.idle();
    const seen = generic.received.map((item) => (item.json.notifications as { trigger: string; message: string }[])[0]);
    expect(seen.map((item) => `${item?.trigger} ${item?.message}`).sort()).toEqual([
      'run:created Run Created',
      'run:errored Run Discarded',
      'run:needs_attention Run Needs Attention',
    ]);
    const created = generic.received.find((item) => (item.json.notifications as { trigger: string }[])[0]?.trigger === 'run:created');
    expect((created?.json.notifications as { run_updated_by: string }[])[0]?.run_updated_by).toBe('admin');
  });

  it('notifies no one for speculative plans or local-execution workspaces', async () => {
    dispatcher.runTransition({ run: { ...run, planOnly: true }, from: 'planning', to: 'planned_and_finished' });
    const local = await newWorkspace(server, 'local-one', { 'execution-mode': 'local' });
    await configure(local, { name: 'generic', 'destination-type': 'generic', url: generic.url, triggers: ['run:completed'] });
    dispatcher.runTransition({ run: { ...run, workspaceId: local }, from: 'applying', to: 'applied' });
    await dispatcher.idle();
    expect(generic.received).toEqual([]);
  });

  it('never holds the caller: a dead or silent receiver is recorded as unsuccessful after the timeout', async () => {
    const silent = await startSilentReceiver();
    const other = await newWorkspace(server, 'unreachable');
    const deadId = await configure(other, { name: 'dead', 'destination-type': 'generic', url: await deadUrl(), triggers: ['run:errored'] });
    const silentId = await configure(other, { name: 'silent', 'destination-type': 'generic', url: silent.url, triggers: ['run:errored'] });
    enable(deadId);
    enable(silentId);
    dispatcher.runTransition({ run: { ...run, workspaceId: other }, from: 'planning', to: 'errored' });
    // The call has returned while the silent receiver holds its delivery: nothing is recorded yet.
    await silent.requested;
    expect(await responsesOf(silentId)).toEqual([]);
    await dispatcher.idle();
    const [dead] = await responsesOf(deadId);
    expect(dead).toMatchObject({ successful: 'false', code: '' });
    const [hung] = await responsesOf(silentId);
    expect(hung).toMatchObject({ successful: 'false', code: '' });
    await silent.close();
  });

  it('mails through the SMTP server when the mail settings are enabled', async () => {
    const received: { to: string[]; data: string }[] = [];
    const smtp = new SMTPServer({
      disabledCommands: ['STARTTLS'],
      authOptional: true,
      logger: false,
      onData(stream, session, callback) {
        let data = '';
        stream.on('data', (chunk: Buffer) => (data += chunk.toString()));
        stream.on('end', () => {
          received.push({ to: session.envelope.rcptTo.map((rcpt) => rcpt.address), data });
          callback();
        });
      },
    });
    await new Promise<void>((done) => smtp.listen(0, '127.0.0.1', done));
    const { port } = smtp.server.address() as AddressInfo;
    const patched = await patchSettings(server, 'smtp-settings', {
      enabled: true,
      host: '127.0.0.1',
      port,
      sender: 'understudy@example.test',
      auth: 'none',
      'test-email-address': 'admin@example.test',
    });
    expect(patched.status).toBe(200);
    received.length = 0;
    dispatcher.runTransition({ run, from: 'planning', to: 'errored' });
    await dispatcher.idle();
    expect(received).toHaveLength(1);
    expect(received[0]?.to).toEqual(['ops@example.test']);
    expect(received[0]?.data).toContain('Subject: Run Errored: understudy/notifying');
    // The body is quoted-printable (long lines wrap with "=" at the end): the run link, unwrapped.
    expect(received[0]?.data.replace(/=\r?\n/g, '')).toContain(`${server.baseUrl}/app/understudy/notifying/runs/${run.id}`);
    const { messages } = (await control(server, 'GET', '/outbox')).body;
    expect(messages).toContainEqual(expect.objectContaining({ 'delivered-via': 'smtp', to: 'ops@example.test' }));
    await patchSettings(server, 'smtp-settings', { enabled: false });
    await new Promise<void>((done) => smtp.close(() => done()));
  });
});
