import { createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../../src/app.js';
import { platform, startServer, testConfig, type TestServer } from '../../helpers/app.js';
import { outbox, patchSettings } from './helpers.js';

interface Received {
  from: string;
  to: string[];
  data: string;
}

/** A real SMTP server in this process, recording what it receives. */
async function startSmtp(options: Partial<SMTPServerOptions>): Promise<{ port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS'],
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      let data = '';
      stream.on('data', (chunk: Buffer) => (data += chunk.toString()));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
          data,
        });
        callback();
      });
    },
    ...options,
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.server.address() as AddressInfo;
  return { port, received, close: () => new Promise<void>((done) => server.close(() => done())) };
}

const settings = (port: number, extra: Record<string, unknown> = {}) => ({
  enabled: true,
  host: '127.0.0.1',
  port,
  sender: 'understudy@example.test',
  auth: 'none',
  'test-email-address': 'admin@example.test',
  ...extra,
});

describe('SMTP settings send a real test message', () => {
  let server: TestServer;
  const smtps: { close(): Promise<void> }[] = [];
  // The default wait (10 s): a real server's answer must never lose to a short timer on a busy
  // machine. The one test about the wait starts a server of its own with a short one.
  beforeAll(async () => {
    server = await startServer();
  });
  afterEach(async () => {
    await Promise.all(smtps.splice(0).map((smtp) => smtp.close()));
    await fetch(`${server.baseUrl}/_emulator/reset`, { method: 'POST' });
  });
  afterAll(() => server.close());

  it('delivers to the configured server without auth: right sender and recipient, recorded in the outbox, address not stored', async () => {
    const smtp = await startSmtp({});
    smtps.push(smtp);
    const response = await patchSettings(server, 'smtp-settings', settings(smtp.port));
    expect(response.status).toBe(200);
    expect(response.body.data.attributes).toMatchObject({ enabled: true, host: '127.0.0.1', port: smtp.port, auth: 'none' });
    expect(response.body.data.attributes).not.toHaveProperty('test-email-address');
    expect(smtp.received).toHaveLength(1);
    expect(smtp.received[0]).toMatchObject({ from: 'understudy@example.test', to: ['admin@example.test'] });
    expect(smtp.received[0]?.data).toContain('Subject: understudy test message');
    expect(await outbox(server)).toEqual([
      expect.objectContaining({ kind: 'mail', 'delivered-via': 'smtp', from: 'understudy@example.test', to: 'admin@example.test' }),
    ]);
  });

  it.each(['plain', 'login'])('authenticates with %s using the stored username and password', async (auth) => {
    const seen: { method: string; username: string; password: string }[] = [];
    const smtp = await startSmtp({
      authOptional: false,
      allowInsecureAuth: true,
      authMethods: ['PLAIN', 'LOGIN'],
      onAuth(login, _session, callback) {
        seen.push({ method: login.method, username: login.username ?? '', password: login.password ?? '' });
        if (login.username === 'mailer' && login.password === 'right-password') return callback(null, { user: 'mailer' });
        return callback(new Error('Invalid username or password'));
      },
    });
    smtps.push(smtp);
    const ok = await patchSettings(server, 'smtp-settings', settings(smtp.port, { auth, username: 'mailer', password: 'right-password' }));
    expect(ok.status).toBe(200);
    expect(seen[0]).toEqual({ method: auth.toUpperCase(), username: 'mailer', password: 'right-password' });
    expect(smtp.received).toHaveLength(1);
    expect(JSON.stringify(ok.body)).not.toContain('right-password');

    // Bad credentials: 401, and the stored settings keep the good password (a later PATCH still works).
    const bad = await patchSettings(server, 'smtp-settings', { password: 'wrong-password', 'test-email-address': 'admin@example.test' });
    expect(bad.status).toBe(401);
    expect(JSON.stringify(bad.body)).not.toContain('wrong-password');
    const again = await patchSettings(server, 'smtp-settings', { 'test-email-address': 'other@example.test' });
    expect(again.status).toBe(200);
    expect(smtp.received.map((message) => message.to[0])).toEqual(['admin@example.test', 'other@example.test']);
  });

  it('answers 500 when the server refuses the message, and stores nothing', async () => {
    const smtp = await startSmtp({
      onRcptTo(_address, _session, callback) {
        const error = new Error('mailbox unavailable') as Error & { responseCode: number };
        error.responseCode = 550;
        callback(error);
      },
    });
    smtps.push(smtp);
    const response = await patchSettings(server, 'smtp-settings', settings(smtp.port));
    expect(response.status).toBe(500);
    expect(response.body.errors[0].status).toBe('500');
    expect((await platform(server, 'GET', '/admin/smtp-settings')).body.data.attributes.enabled).toBe(false);
    expect(await outbox(server)).toEqual([]);
  });

  it('answers 500 when nothing listens at the address', async () => {
    const port = await new Promise<number>((done) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => done(free));
      });
    });
    expect((await patchSettings(server, 'smtp-settings', settings(port))).status).toBe(500);
  });

  it('answers 504 when the server does not answer within the configured wait', async () => {
    // A socket that accepts and then says nothing: no SMTP greeting ever comes.
    const silent = createServer(() => undefined);
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    smtps.push({
      close: () =>
        new Promise<void>((done) => {
          silent.close(() => done());
          (silent as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
        }),
    });
    // A short wait is safe here: nothing will ever answer, so the wait always runs out.
    const waiting = await startServer({ UNDERSTUDY_MAIL_TIMEOUT_MS: '700' });
    smtps.push({ close: () => waiting.close() });
    const response = await patchSettings(waiting, 'smtp-settings', settings((silent.address() as AddressInfo).port));
    expect(response.status).toBe(504);
    // The wait that ran out is the configured one (700 ms), not the 10 s default.
    expect(response.body.errors[0].detail).toContain('did not finish within 700 ms');
    expect((await platform(waiting, 'GET', '/admin/smtp-settings')).body.data.attributes.enabled).toBe(false);
  });

  it('sends nothing when mail is disabled', async () => {
    const smtp = await startSmtp({});
    smtps.push(smtp);
    const response = await patchSettings(server, 'smtp-settings', settings(smtp.port, { enabled: false }));
    expect(response.status).toBe(200);
    expect(smtp.received).toHaveLength(0);
  });
});

describe('secrets in the log', () => {
  it('never writes the SMTP password or the SMS auth token, even at trace level and on failures', async () => {
    let logged = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });
    // The default mail wait: the refusal must come from the server, not from a short timer on a busy machine.
    const app = await buildApp(testConfig({ UNDERSTUDY_LOG_LEVEL: 'trace' }), { logTo: sink });
    await app.fastify.listen({ host: '127.0.0.1', port: 0 });
    const server = {
      app,
      config: testConfig(),
      baseUrl: `http://127.0.0.1:${(app.fastify.server.address() as AddressInfo).port}`,
      close: () => app.fastify.close(),
    };
    try {
      const smtp = await startSmtp({
        authOptional: false,
        allowInsecureAuth: true,
        onAuth: (_login, _session, callback) => callback(new Error('Invalid username or password')),
      });
      try {
        const refused = await patchSettings(
          server,
          'smtp-settings',
          settings(smtp.port, { auth: 'login', username: 'mailer', password: 'smtp-password-never-logged' }),
        );
        expect(refused.status).toBe(401);
      } finally {
        await smtp.close();
      }
      await patchSettings(server, 'sms-settings', {
        enabled: true,
        'account-sid': 'AC1',
        'auth-token': 'sms-token-never-logged',
        'from-number': '+15550000',
      });
      expect(logged).toContain('/api/v2/admin/smtp-settings');
      expect(logged).not.toContain('smtp-password-never-logged');
      expect(logged).not.toContain('sms-token-never-logged');
    } finally {
      await server.close();
    }
  });
});
