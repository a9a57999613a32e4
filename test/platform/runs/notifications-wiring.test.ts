import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { startReceiver, type Receiver } from '../notifications/receiver.js';
import { createRun, newWorkspace, simpleConfig, uploadConfiguration, waitFor } from './helpers.js';

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
  receiver = await startReceiver('wiring-key');
});
afterAll(async () => {
  await receiver.close();
  await server.close();
});

describe("the engine's transitions reach the notification deliveries", () => {
  it('a run that is created and applied notifies run:created and run:completed, signed', async () => {
    const ws = await newWorkspace(server, 'wired', { 'auto-apply': true });
    const created = await platform(server, 'POST', `/workspaces/${ws}/notification-configurations`, {
      body: {
        data: {
          type: 'notification-configurations',
          attributes: {
            name: 'wired',
            enabled: false,
            'destination-type': 'generic',
            url: receiver.url,
            token: 'wiring-key',
            triggers: ['run:created', 'run:completed'],
          },
        },
      },
    });
    expect(created.status).toBe(201);
    // Enabled without the verification message that enabling through the API sends.
    server.app.runtime.store.sqlite.prepare('UPDATE notification_configurations SET enabled = 1 WHERE id = ?').run(created.body.data.id);

    await uploadConfiguration(server, ws, simpleConfig('n'));
    const id = (await createRun(server, ws)).body.data.id as string;
    await waitFor(server, id, 'applied');
    await server.app.platform.services.notifications.dispatcher.idle();
    const seen = receiver.received.map((item) => (item.json.notifications as { trigger: string; run_status: string }[])[0]);
    // Deliveries go out in the background: their order of arrival is not promised.
    expect(seen.map((item) => `${item?.trigger} ${item?.run_status}`).sort()).toEqual(['run:completed applied', 'run:created pending']);
    expect(receiver.received.every((item) => item.verified && item.json.run_id === id)).toBe(true);
  });
});
