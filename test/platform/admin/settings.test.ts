import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { createUserWithToken } from '../identity/helpers.js';
import { patchSettings, selfSignedCertificate } from './helpers.js';

describe('administrator settings (spec dialect, self-hosted)', () => {
  let server: TestServer;
  let userToken: string;
  beforeAll(async () => {
    server = await startServer();
    userToken = (await createUserWithToken(server, 'plain-user')).token;
  });
  afterAll(() => server.close());

  it.each([
    [
      'general-settings',
      'general',
      {
        'api-rate-limit': 30,
        'default-remote-state-access': true,
        'limit-user-organization-creation': true,
        'allow-speculative-plans-on-pull-requests-from-forks': false,
        'send-passing-statuses-for-untriggered-speculative-plans': false,
      },
    ],
    [
      'cost-estimation-settings',
      'cost-estimation',
      { enabled: false, 'cloud-a-access-key-id': '', 'cloud-c-client-id': '', 'cloud-c-tenant-id': '' },
    ],
    [
      'saml-settings',
      'saml',
      {
        enabled: false,
        debug: false,
        'attr-username': 'Username',
        'attr-groups': 'MemberOf',
        'attr-site-admin': 'SiteAdmin',
        'site-admin-role': 'site-admins',
        'sso-api-token-session-timeout': 1209600,
        'old-idp-cert': null,
      },
    ],
    ['smtp-settings', 'smtp', { enabled: false, auth: 'none', host: '', port: null }],
    ['sms-settings', 'sms', { enabled: false, 'account-sid': '', 'from-number': '' }],
    [
      'customization-settings',
      'customization',
      { 'support-email-address': 'support@hashicorp.com', 'login-help': '', footer: '', error: '', 'new-user': '' },
    ],
  ])('GET %s answers the spec id, type and defaults', async (type, id, expected) => {
    const response = await platform(server, 'GET', `/admin/${type}`);
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ id, type, attributes: expected });
    // Attributes only real clients read stay out of the spec dialect.
    expect(response.body.data.attributes).not.toHaveProperty('apply-timeout');
    expect(response.body.data.attributes).not.toHaveProperty('aws-enabled');
  });

  it('answers 404, as for a missing resource, to a caller who is not a site administrator, whatever the body', async () => {
    for (const [method, path] of [
      ['GET', '/admin/general-settings'],
      ['PATCH', '/admin/general-settings'],
      ['GET', '/admin/sms-settings'],
      ['POST', '/admin/sms-settings/verify'],
      ['POST', '/admin/oidc-settings/actions/rotate-key'],
      ['POST', '/admin/saml-settings/actions/revoke-old-certificate'],
    ] as const) {
      const response = await platform(server, method, path, {
        token: userToken,
        ...(method === 'GET' ? {} : { body: { nonsense: true } }),
      });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body).toEqual((await platform(server, 'GET', '/organizations/no-such-org')).body);
    }
    const general = await platform(server, 'GET', '/admin/general-settings');
    expect(general.body.data.attributes['api-rate-limit']).toBe(30);
  });

  it('changes only the attributes given: "type": "" and nulls are accepted, null keeps the value', async () => {
    const first = await patchSettings(server, 'general-settings', { 'api-rate-limit': 50, 'api-rate-limiting-enabled': false });
    expect(first.status).toBe(200);
    expect(first.body.data.attributes).toMatchObject({
      'api-rate-limit': 50,
      'api-rate-limiting-enabled': false,
      'default-remote-state-access': true,
    });
    const second = await patchSettings(server, 'general-settings', {
      'api-rate-limit': null,
      'apply-timeout': null,
      'plan-timeout': null,
      'send-passing-statuses-for-untriggered-speculative-plans': true,
    });
    expect(second.status).toBe(200);
    expect(second.body.data.attributes).toMatchObject({
      'api-rate-limit': 50,
      'send-passing-statuses-for-untriggered-speculative-plans': true,
    });
    expect((await platform(server, 'GET', '/admin/general-settings')).body.data.attributes['api-rate-limit']).toBe(50);
    await patchSettings(server, 'general-settings', {
      'api-rate-limit': 30,
      'send-passing-statuses-for-untriggered-speculative-plans': false,
    });
  });

  it.each([
    ['general-settings', { 'api-rate-limit': 29 }, 'api-rate-limit'],
    ['general-settings', { 'api-rate-limit': 30.5 }, 'api-rate-limit'],
    ['general-settings', { 'api-rate-limiting-enabled': 'yes' }, 'api-rate-limiting-enabled'],
    ['smtp-settings', { auth: 'cram-md5' }, 'auth'],
    ['smtp-settings', { port: 70000 }, 'port'],
    ['smtp-settings', { enabled: true, host: 'mail.test', port: 25, sender: 'ops@example.test', auth: 'login' }, 'username'],
    ['smtp-settings', { enabled: true, port: 25, sender: 'ops@example.test' }, 'host'],
    ['smtp-settings', { enabled: true, host: 'mail.test', port: 25, sender: 'not-an-address' }, 'sender'],
    ['sms-settings', { enabled: true, 'account-sid': 'AC1' }, 'auth-token'],
    ['saml-settings', { 'sso-api-token-session-timeout': 'long' }, 'sso-api-token-session-timeout'],
    ['saml-settings', { enabled: true, 'idp-cert': 'not a certificate' }, 'idp-cert'],
    ['saml-settings', { enabled: true, 'idp-cert': '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n' }, 'idp-cert'],
    ['cost-estimation-settings', { enabled: true, 'cloud-a-access-key-id': 'AKIA1' }, 'enabled'],
    ['cost-estimation-settings', { enabled: true, 'cloud-b-credentials': '{"type":"user"}' }, 'enabled'],
    [
      'cost-estimation-settings',
      { enabled: true, 'cloud-c-client-id': 'a', 'cloud-c-client-secret': 'b', 'cloud-c-subscription-id': 'c' },
      'enabled',
    ],
    ['customization-settings', { footer: 42 }, 'footer'],
  ])('PATCH %s %j is a 422 pointing at %s, and changes nothing', async (address, attributes, attribute) => {
    const before = (await platform(server, 'GET', `/admin/${address}`)).body;
    const response = await patchSettings(server, address, attributes);
    expect(response.status).toBe(422);
    expect(response.body.errors[0].source.pointer).toBe(`/data/attributes/${attribute}`);
    expect((await platform(server, 'GET', `/admin/${address}`)).body).toEqual(before);
  });

  it('answers malformed bodies with a 422, never a 5xx, on every settings document and action', async () => {
    const bodies = [
      '',
      'not json',
      '[]',
      '{"data":null}',
      '{"data":{"type":"","attributes":null}}',
      '{"data":{"type":"users","attributes":{}}}',
      '{"data":{"attributes":{}}}',
    ];
    for (const address of [
      'general-settings',
      'cost-estimation-settings',
      'saml-settings',
      'smtp-settings',
      'sms-settings',
      'twilio-settings',
      'customization-settings',
      'sms-settings/verify',
    ]) {
      for (const body of bodies) {
        const response = await platform(server, address.endsWith('verify') ? 'POST' : 'PATCH', `/admin/${address}`, { body });
        // verify without a usable test number is the spec's 400; a body of the wrong shape is a 422.
        if (address.endsWith('verify')) expect([400, 422], `${address} ${body}`).toContain(response.status);
        else expect(response.status, `${address} ${body}`).toBe(422);
        expect(response.body.errors[0].status).toBe(String(response.status));
      }
    }
  });

  it('enables cost estimation with any one complete credential set, and returns credentials as stored', async () => {
    const serviceAccount = JSON.stringify({
      type: 'service_account',
      private_key: '-----BEGIN PRIVATE KEY-----\nx\n-----END PRIVATE KEY-----\n',
      client_email: 'pricing@project.test',
    });
    for (const set of [
      { 'cloud-a-access-key-id': 'AKIAEXAMPLE', 'cloud-a-secret-key': 'secret-a' },
      { 'cloud-b-credentials': serviceAccount },
      { 'cloud-c-client-id': 'id', 'cloud-c-client-secret': 'secret', 'cloud-c-subscription-id': 'sub', 'cloud-c-tenant-id': 'tenant' },
    ]) {
      const cleared = {
        'cloud-a-access-key-id': '',
        'cloud-a-secret-key': '',
        'cloud-b-credentials': '',
        'cloud-c-client-id': '',
        'cloud-c-client-secret': '',
        'cloud-c-subscription-id': '',
        'cloud-c-tenant-id': '',
      };
      const response = await patchSettings(server, 'cost-estimation-settings', { ...cleared, enabled: true, ...set });
      expect(response.status, JSON.stringify(set)).toBe(200);
      // The secret half of each set is kept (enabled needs it) but shown by neither the PATCH nor a GET.
      const secrets = ['cloud-a-secret-key', 'cloud-b-credentials', 'cloud-c-client-secret'];
      const shown = Object.fromEntries(Object.entries(set).filter(([name]) => !secrets.includes(name)));
      expect(response.body.data.attributes).toMatchObject({ enabled: true, ...shown });
      const read = (await platform(server, 'GET', '/admin/cost-estimation-settings')).body.data.attributes;
      for (const hidden of secrets) {
        expect(response.body.data.attributes, hidden).not.toHaveProperty(hidden);
        expect(read, hidden).not.toHaveProperty(hidden);
      }
      expect(JSON.stringify(read)).not.toMatch(/secret-a|pricing@project\.test|"secret"/);
    }
    await patchSettings(server, 'cost-estimation-settings', { enabled: false });
  });

  it('never returns the SMTP password or the SMS auth token, and never takes the test address as a setting', async () => {
    const smtp = await patchSettings(server, 'smtp-settings', {
      host: 'mail.test',
      port: 2525,
      sender: 'ops@example.test',
      auth: 'plain',
      username: 'ops',
      password: 'hunter2-smtp',
    });
    expect(smtp.status).toBe(200);
    expect(smtp.body.data.attributes).toMatchObject({ host: 'mail.test', port: 2525, auth: 'plain', username: 'ops' });
    const sms = await patchSettings(server, 'sms-settings', {
      'account-sid': 'AC123',
      'auth-token': 'hunter2-sms',
      'from-number': '+15550000',
    });
    expect(sms.status).toBe(200);
    for (const address of ['smtp-settings', 'sms-settings', 'twilio-settings']) {
      const text = JSON.stringify((await platform(server, 'GET', `/admin/${address}`)).body);
      expect(text).not.toContain('hunter2');
      expect(text).not.toContain('password');
      expect(text).not.toContain('auth-token');
      expect(text).not.toContain('test-email-address');
    }
    // A PATCH without auth keeps it (the real client omits it).
    expect((await patchSettings(server, 'smtp-settings', { host: 'mail2.test' })).body.data.attributes.auth).toBe('plain');
    await patchSettings(server, 'smtp-settings', { auth: 'none' });
  });

  it('answers the SMS settings at the real provider name too, and takes verify as POST and PATCH', async () => {
    const real = await platform(server, 'GET', '/admin/twilio-settings');
    expect(real.status).toBe(200);
    expect(real.body.data).toMatchObject({ id: 'sms', type: 'sms-settings' });
    const patched = await platform(server, 'PATCH', '/admin/twilio-settings', {
      body: { data: { type: 'twilio-settings', attributes: { 'from-number': '+15551111' } } },
    });
    expect(patched.body.data.attributes['from-number']).toBe('+15551111');
    for (const method of ['POST', 'PATCH']) {
      for (const path of ['/admin/sms-settings/verify', '/admin/twilio-settings/verify']) {
        // SMS is disabled here: 400, not 404 (the route exists for both methods and both names).
        const response = await platform(server, method, path, { body: { data: { type: '', attributes: { 'test-number': '+15552222' } } } });
        expect(response.status, `${method} ${path}`).toBe(400);
      }
    }
  });

  it('validates SAML when enabled, keeps the previous IdP certificate, and revokes it', async () => {
    const first = selfSignedCertificate('idp-one');
    const second = selfSignedCertificate('idp-two');
    const urls = { 'sso-endpoint-url': 'https://idp.example.test/sso', 'slo-endpoint-url': 'https://idp.example.test/slo' };
    const insecure = await patchSettings(server, 'saml-settings', {
      enabled: true,
      'idp-cert': first,
      ...urls,
      'slo-endpoint-url': 'http://idp.example.test/slo',
    });
    expect(insecure.status).toBe(422);
    expect(insecure.body.errors[0].source.pointer).toBe('/data/attributes/slo-endpoint-url');

    const enabled = await patchSettings(server, 'saml-settings', { enabled: true, 'idp-cert': first, ...urls });
    expect(enabled.status).toBe(200);
    expect(enabled.body.data.attributes).toMatchObject({ enabled: true, 'idp-cert': first, 'old-idp-cert': null, ...urls });
    expect(enabled.body.data.attributes['acs-consumer-url']).toBe(`${server.baseUrl}/users/saml/auth`);
    expect(enabled.body.data.attributes['metadata-url']).toBe(`${server.baseUrl}/users/saml/metadata`);

    const rotated = await patchSettings(server, 'saml-settings', { 'idp-cert': second, 'old-idp-cert': 'ignored: read-only' });
    expect(rotated.body.data.attributes).toMatchObject({ 'idp-cert': second, 'old-idp-cert': first });

    const revoked = await platform(server, 'POST', '/admin/saml-settings/actions/revoke-old-certificate');
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toMatchObject({
      id: 'saml',
      type: 'saml-settings',
      attributes: { 'idp-cert': second, 'old-idp-cert': null },
    });
    await patchSettings(server, 'saml-settings', { enabled: false });
  });

  it('leaves SAML certificates unchecked while SAML is disabled', async () => {
    const off = await patchSettings(server, 'saml-settings', { enabled: false, certificate: 'testCert', 'idp-cert': 'testCert' });
    expect(off.status).toBe(200);
    expect(off.body.data.attributes['idp-cert']).toBe('testCert');
    const refused = await patchSettings(server, 'saml-settings', { enabled: true });
    expect(refused.status).toBe(422);
    expect(refused.body.errors[0].source.pointer).toBe('/data/attributes/idp-cert');
    expect((await platform(server, 'GET', '/admin/saml-settings')).body.data.attributes.enabled).toBe(false);
  });

  it('escapes HTML characters in customization strings, as the spec says', async () => {
    const response = await patchSettings(server, 'customization-settings', {
      'login-help': '<div>Login Help</div>',
      footer: 'Tom & "Jerry"',
    });
    expect(response.status).toBe(200);
    expect(response.body.data.attributes['login-help']).toBe('&lt;div&gt;Login Help&lt;/div&gt;');
    expect(response.body.data.attributes.footer).toBe('Tom &amp; &quot;Jerry&quot;');
  });

  it('makes default-remote-state-access the default of global-remote-state on new workspaces', async () => {
    const create = (name: string, attributes: Record<string, unknown> = {}) =>
      platform(server, 'POST', '/organizations/understudy/workspaces', {
        body: { data: { type: 'workspaces', attributes: { name, ...attributes } } },
      });
    expect((await create('remote-default-on')).body.data.attributes['global-remote-state']).toBe(true);
    await patchSettings(server, 'general-settings', { 'default-remote-state-access': false });
    expect((await create('remote-default-off')).body.data.attributes['global-remote-state']).toBe(false);
    expect((await create('remote-explicit', { 'global-remote-state': true })).body.data.attributes['global-remote-state']).toBe(true);
    await patchSettings(server, 'general-settings', { 'default-remote-state-access': true });
  });

  it('lets users who are not site administrators create organizations only when limit-user-organization-creation is off', async () => {
    const create = (name: string) =>
      platform(server, 'POST', '/organizations', {
        token: userToken,
        body: { data: { type: 'organizations', attributes: { name, email: 'u@example.test' } } },
      });
    expect((await create('user-org-refused')).status).toBe(404);
    await patchSettings(server, 'general-settings', { 'limit-user-organization-creation': false });
    const allowed = await create('user-org-allowed');
    expect(allowed.status).toBe(201);
    expect((await platform(server, 'GET', '/organizations/user-org-allowed', { token: userToken })).status).toBe(200);
    await patchSettings(server, 'general-settings', { 'limit-user-organization-creation': true });
    expect((await create('user-org-refused-again')).status).toBe(404);
  });
});

describe('administrator settings in the upstream dialect', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_DIALECT: 'upstream' });
  });
  afterAll(() => server.close());

  it('answers the SMS settings as twilio, cost keys with the real cloud names, and the extra attributes', async () => {
    const sms = await platform(server, 'GET', '/admin/sms-settings');
    expect(sms.body.data).toMatchObject({ id: 'twilio', type: 'twilio-settings' });
    const cost = await patchSettings(server, 'cost-estimation-settings', {
      enabled: true,
      'aws-access-key-id': 'AKIA2',
      'aws-secret-key': 's',
    });
    expect(cost.status).toBe(200);
    expect(cost.body.data.attributes).toMatchObject({
      enabled: true,
      'aws-access-key-id': 'AKIA2',
      'aws-enabled': false,
    });
    expect(cost.body.data.attributes).not.toHaveProperty('cloud-a-access-key-id');
    expect(cost.body.data.attributes).not.toHaveProperty('aws-secret-key');
    const general = await patchSettings(server, 'general-settings', { 'api-rate-limit': 50, 'apply-timeout': '2h', 'plan-timeout': '30m' });
    expect(general.body.data.attributes).toMatchObject({ 'api-rate-limit': 50, 'apply-timeout': '2h', 'plan-timeout': '30m' });
    expect((await patchSettings(server, 'general-settings', { 'plan-timeout': 'soon' })).status).toBe(422);
  });

  it('round-trips customization strings verbatim, as the real client compares them', async () => {
    const response = await patchSettings(server, 'customization-settings', { 'login-help': '<div>Login Help</div>' });
    expect(response.body.data.attributes['login-help']).toBe('<div>Login Help</div>');
  });

  it("takes the client's SAML sequence: any certificate text, disabled or enabled", async () => {
    const urls = { 'sso-endpoint-url': 'https://example.com/sso', 'slo-endpoint-url': 'https://example.com/slo' };
    const off = await patchSettings(server, 'saml-settings', {
      certificate: 'testCert',
      'private-key': 'k',
      'idp-cert': 'testCert',
      ...urls,
    });
    expect(off.status).toBe(200);
    expect(off.body.data.attributes.certificate).toBe('testCert');
    const on = await patchSettings(server, 'saml-settings', { enabled: true, 'team-management-enabled': true, certificate: 'testCert' });
    expect(on.status).toBe(200);
    expect(on.body.data.attributes).toMatchObject({ enabled: true, 'team-management-enabled': true });
    expect((await patchSettings(server, 'saml-settings', { enabled: true, 'idp-cert': 'anotherTestCert' })).status).toBe(200);
    await patchSettings(server, 'saml-settings', { enabled: false });
  });

  it('checks the SAML signing options and keeps the four provider types', async () => {
    expect((await patchSettings(server, 'saml-settings', { 'signature-signing-method': 'SHA1' })).status).toBe(200);
    expect((await patchSettings(server, 'saml-settings', { 'signature-signing-method': 'SHA1234' })).status).toBe(422);
    for (const type of ['okta', 'entra', 'saml', 'unknown']) {
      expect((await patchSettings(server, 'saml-settings', { 'provider-type': type })).body.data.attributes['provider-type']).toBe(type);
    }
    const withKey = await patchSettings(server, 'saml-settings', { 'private-key': 'secret-key-material' });
    expect(JSON.stringify(withKey.body)).not.toContain('secret-key-material');
  });
});

describe('administrator settings on the hosted edition', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EDITION: 'hosted' });
  });
  afterAll(() => server.close());

  it('answers 404 at every admin settings path, even to the site administrator', async () => {
    for (const [method, path] of [
      ['GET', '/admin/general-settings'],
      ['PATCH', '/admin/smtp-settings'],
      ['GET', '/admin/twilio-settings'],
      ['POST', '/admin/oidc-settings/actions/rotate-key'],
    ] as const) {
      expect(
        (await platform(server, method, path, method === 'GET' ? {} : { body: { data: { type: '', attributes: {} } } })).status,
        path,
      ).toBe(404);
    }
  });
});
