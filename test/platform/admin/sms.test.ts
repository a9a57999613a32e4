import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { outbox, patchSettings } from './helpers.js';

const ACCOUNT = { 'account-sid': 'AC0123456789', 'auth-token': 'sms-secret-token', 'from-number': '+15550001111' };
const verify = (server: TestServer, method: string, attributes: Record<string, unknown>) =>
  platform(server, method, '/admin/sms-settings/verify', { body: { data: { type: '', attributes } } });

describe('SMS verification into the own outbox (UNDERSTUDY_SMS_API_URL unset)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.close());

  it('answers 400 while SMS is disabled, without a number, or with incomplete settings', async () => {
    expect((await verify(server, 'POST', { 'test-number': '+15559990000' })).status).toBe(400);
    await patchSettings(server, 'sms-settings', { enabled: true, ...ACCOUNT });
    expect((await verify(server, 'POST', {})).status).toBe(400);
    expect((await verify(server, 'POST', { 'test-number': '' })).status).toBe(400);
    expect(await outbox(server)).toEqual([]);
  });

  it('records the test message in the outbox, for POST and for PATCH, without persisting the number', async () => {
    await patchSettings(server, 'sms-settings', { enabled: true, ...ACCOUNT });
    const posted = await verify(server, 'POST', { 'test-number': '+15559990000' });
    expect(posted.status).toBe(200);
    expect(posted.body).toBeUndefined();
    const patched = await platform(server, 'PATCH', '/admin/twilio-settings/verify', {
      body: { data: { type: '', attributes: { 'test-number': '+15559990001' } } },
    });
    expect(patched.status).toBe(200);
    const messages = await outbox(server);
    expect(messages).toEqual([
      expect.objectContaining({ kind: 'sms', 'delivered-via': 'outbox', from: '+15550001111', to: '+15559990000' }),
      expect.objectContaining({ kind: 'sms', 'delivered-via': 'outbox', from: '+15550001111', to: '+15559990001' }),
    ]);
    expect(JSON.stringify((await platform(server, 'GET', '/admin/sms-settings')).body)).not.toContain('+1555999');
  });
});

describe('SMS verification through an SMS messages API (UNDERSTUDY_SMS_API_URL)', () => {
  let server: TestServer;
  let api: Server;
  const requests: { url: string; authorization: string; type: string; form: Record<string, string> }[] = [];
  let answer = 201;

  beforeAll(async () => {
    api = createServer((request: IncomingMessage, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString()));
      request.on('end', () => {
        requests.push({
          url: request.url ?? '',
          authorization: request.headers.authorization ?? '',
          type: request.headers['content-type'] ?? '',
          form: Object.fromEntries(new URLSearchParams(body)),
        });
        response.writeHead(answer, { 'content-type': 'application/json' });
        response.end(
          JSON.stringify(
            answer === 201 ? { sid: 'SM1', status: 'queued' } : { code: 21211, message: "The 'To' number is not a valid phone number." },
          ),
        );
      });
    });
    await new Promise<void>((done) => api.listen(0, '127.0.0.1', done));
    server = await startServer({ UNDERSTUDY_SMS_API_URL: `http://127.0.0.1:${(api.address() as AddressInfo).port}` });
    await patchSettings(server, 'sms-settings', { enabled: true, ...ACCOUNT });
  });
  afterAll(async () => {
    await server.close();
    await new Promise<void>((done) => api.close(() => done()));
  });

  it('POSTs the form with basic auth of account sid and auth token, and records the delivery', async () => {
    const response = await verify(server, 'POST', { 'test-number': '+15559990002' });
    expect(response.status).toBe(200);
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      url: '/2010-04-01/Accounts/AC0123456789/Messages.json',
      authorization: `Basic ${Buffer.from('AC0123456789:sms-secret-token').toString('base64')}`,
      type: 'application/x-www-form-urlencoded',
      form: { To: '+15559990002', From: '+15550001111' },
    });
    expect(requests[0]?.form['Body']).toContain('test message');
    expect(await outbox(server)).toEqual([expect.objectContaining({ kind: 'sms', 'delivered-via': 'http', to: '+15559990002' })]);
  });

  it("answers 400 with the API's reason when it refuses the message", async () => {
    answer = 400;
    const response = await verify(server, 'POST', { 'test-number': 'not-a-number' });
    expect(response.status).toBe(400);
    expect(response.body.errors[0].detail).toContain('not a valid phone number');
    expect(JSON.stringify(response.body)).not.toContain('sms-secret-token');
    answer = 201;
  });
});
