import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { gitRepository } from './git.js';
import { ORG } from './helpers.js';

let server: TestServer;
let work: string;
let tokenId: string;
let base: string;

const tf = (label: string) => [{ name: 'main.tf', content: `output "label" {\n  value = "${label}"\n}\n` }];

beforeAll(async () => {
  server = await startServer();
  work = await mkdtemp(join(tmpdir(), 'understudy-vcs-test-'));
  const repository = await gitRepository(work, 'terraform-aws-bucket', [
    { tag: 'v1.0.0', files: tf('one') },
    { tag: '1.1.0', files: tf('one-one') },
    { tag: 'release-2', files: tf('not a version') },
  ]);
  base = repository.base;
  const client = await platform(server, 'POST', `/organizations/${ORG}/oauth-clients`, {
    body: {
      data: {
        type: 'oauth-clients',
        attributes: { 'service-provider': 'github', 'http-url': base, 'api-url': base, 'oauth-token-string': 'secret-token-string' },
      },
    },
  });
  expect(client.status).toBe(201);
  expect(JSON.stringify(client.body)).not.toContain('secret-token-string');
  tokenId = client.body.data.relationships['oauth-tokens'].data[0].id;
});
afterAll(async () => {
  await server.close();
  await rm(work, { recursive: true, force: true });
});

const publish = (
  vcsRepo: Record<string, unknown>,
  options: { org?: string | null; token?: string; extra?: Record<string, unknown> } = {},
) =>
  platform(server, 'POST', options.org === null ? '/registry-modules' : `/organizations/${options.org ?? ORG}/registry-modules/vcs`, {
    body: { data: { type: 'registry-modules', attributes: { 'vcs-repo': vcsRepo, ...options.extra } } },
    ...(options.token ? { token: options.token } : {}),
  });

describe('VCS connections and publishing', () => {
  it('reads the connection and its token back', async () => {
    const token = await platform(server, 'GET', `/oauth-tokens/${tokenId}`);
    expect(token.status).toBe(200);
    expect(token.body.data.type).toBe('oauth-tokens');
    const client = await platform(server, 'GET', `/oauth-clients/${token.body.data.relationships['oauth-client'].data.id}`);
    expect(client.body.data.attributes['http-url']).toBe(base);
  });

  it('validates the body: identifier format, oauth-token-id xor vcs-app-installation-id', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ 'oauth-token-id': tokenId }, 'identifier'],
      [{ identifier: 'no-slash', 'oauth-token-id': tokenId }, 'identifier'],
      [{ identifier: 'a/b/c', 'oauth-token-id': tokenId }, 'identifier'],
      [{ identifier: 'acme/terraform-aws-bucket' }, 'oauth-token-id'],
      [{ identifier: 'acme/terraform-aws-bucket', 'oauth-token-id': tokenId, 'vcs-app-installation-id': 'ghain-1' }, 'oauth-token-id'],
      [{ identifier: 'acme/bucket', 'oauth-token-id': tokenId }, 'identifier'],
      [{ identifier: 'acme/terraform-aws-missing', 'oauth-token-id': tokenId }, 'identifier'],
    ];
    for (const [vcsRepo, attribute] of cases) {
      const response = await publish(vcsRepo);
      expect(response.status, JSON.stringify(vcsRepo)).toBe(422);
      expect(response.body.errors[0].source.pointer).toBe(`/data/attributes/vcs-repo/${attribute}`);
    }
    expect((await publish({ identifier: 'acme/terraform-aws-bucket', 'oauth-token-id': 'ot-unknown' })).status).toBe(404);
    expect((await platform(server, 'GET', `/organizations/${ORG}/registry-modules?q=bucket`)).body.data).toEqual([]);
  });

  it('accepts the three-part identifier form of the one provider kind that nests projects', async () => {
    const nested = await gitRepository(work, 'proj/_git/terraform-gcp-net', [{ tag: 'v0.1.0', files: tf('net') }]);
    const response = await publish({ identifier: 'acme/proj/_git/terraform-gcp-net', 'oauth-token-id': tokenId });
    expect(response.status).toBe(201);
    expect(response.body.data.attributes).toMatchObject({ name: 'net', provider: 'gcp' });
    expect(nested.identifier).toBe('acme/proj/_git/terraform-gcp-net');
  });

  it('publishes: every semver tag (optional v) becomes an ok version; vcs-repo and webhook-url are shown', async () => {
    const response = await publish(
      { identifier: 'acme/terraform-aws-bucket', 'oauth-token-id': tokenId, display_identifier: 'acme/terraform-aws-bucket' },
      { extra: { 'no-code': true } },
    );
    expect(response.status).toBe(201);
    const attributes = response.body.data.attributes;
    expect(attributes).toMatchObject({
      name: 'bucket',
      provider: 'aws',
      namespace: ORG,
      'registry-name': 'private',
      status: 'setup_complete',
      'no-code': true,
      'publishing-mechanism': 'git_tag',
    });
    expect(attributes['version-statuses']).toEqual([
      { version: '1.1.0', status: 'ok' },
      { version: '1.0.0', status: 'ok' },
    ]);
    expect(attributes['vcs-repo']).toMatchObject({
      identifier: 'acme/terraform-aws-bucket',
      'display-identifier': 'acme/terraform-aws-bucket',
      'oauth-token-id': tokenId,
      'ingress-submodules': true,
    });
    expect(attributes['vcs-repo']['webhook-url']).toMatch(new RegExp(`^${server.baseUrl}/api/registry/webhooks/`));
    // Versions of a VCS module come from tags only.
    const manual = await platform(server, 'POST', `/organizations/${ORG}/registry-modules/private/${ORG}/bucket/aws/versions`, {
      body: { data: { type: 'registry-module-versions', attributes: { version: '9.0.0' } } },
    });
    expect(manual.status).toBe(422);
  });

  it('the webhook ingests tags pushed later', async () => {
    const repository = await gitRepository(work, 'terraform-aws-queue', [{ tag: 'v1.0.0', files: tf('q1') }]);
    const response = await publish({ identifier: 'acme/terraform-aws-queue', 'oauth-token-id': tokenId });
    const webhook: string = response.body.data.attributes['vcs-repo']['webhook-url'];
    await repository.addTag({ tag: 'v1.1.0', files: tf('q2') });
    const hook = await fetch(webhook, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"ref":"refs/tags/v1.1.0"}',
    });
    expect(hook.status).toBe(200);
    expect(await hook.json()).toEqual({ added: ['1.1.0'], failed: [] });
    const module = await platform(server, 'GET', `/organizations/${ORG}/registry-modules/private/${ORG}/queue/aws`);
    expect(module.body.data.attributes['version-statuses'].map((v: { version: string }) => v.version)).toEqual(['1.1.0', '1.0.0']);
    expect((await fetch(webhook.replace(/[^/]+$/, 'wrong-secret'), { method: 'POST' })).status).toBe(404);
  });

  it('the connection decides the organization; the deprecated path works; only owners publish', async () => {
    await gitRepository(work, 'terraform-aws-legacy', [{ tag: 'v1.0.0', files: tf('legacy') }]);
    const other = await platform(server, 'POST', '/organizations', {
      body: { data: { type: 'organizations', attributes: { name: 'other-org', email: 'o@example.test' } } },
    });
    expect(other.status).toBe(201);
    expect((await publish({ identifier: 'acme/terraform-aws-legacy', 'oauth-token-id': tokenId }, { org: 'other-org' })).status).toBe(404);
    const team = await platform(server, 'POST', `/organizations/${ORG}/teams`, {
      body: { data: { type: 'teams', attributes: { name: 'vcs-readers' } } },
    });
    const token = (
      await platform(server, 'POST', `/teams/${team.body.data.id}/authentication-token`, {
        body: { data: { type: 'authentication-tokens' } },
      })
    ).body.data.attributes.token;
    expect((await publish({ identifier: 'acme/terraform-aws-legacy', 'oauth-token-id': tokenId }, { token })).status).toBe(404);
    const legacy = await publish({ identifier: 'acme/terraform-aws-legacy', 'oauth-token-id': tokenId }, { org: null });
    expect(legacy.status).toBe(201);
    expect(legacy.body.data.relationships.organization.data.id).toBe(ORG);
  });

  /** A second connection whose `http-url` is `base`; its token id. */
  async function connectionTo(httpUrl: string): Promise<string> {
    const client = await platform(server, 'POST', `/organizations/${ORG}/oauth-clients`, {
      body: {
        data: {
          type: 'oauth-clients',
          attributes: { 'service-provider': 'github', 'http-url': httpUrl, 'api-url': httpUrl, 'oauth-token-string': 't' },
        },
      },
    });
    expect(client.status).toBe(201);
    return client.body.data.relationships['oauth-tokens'].data[0].id as string;
  }

  it('refuses . and .. segments: an identifier never leaves its connection base', async () => {
    // A repository right beside the connection's base directory.
    const outside = await gitRepository(join(work, 'beside'), 'terraform-aws-trav', [{ tag: 'v1.0.0', files: tf('outside') }]);
    const inner = await connectionTo(join(outside.base, 'acme', 'inner'));
    for (const identifier of [
      '../terraform-aws-trav',
      './terraform-aws-trav',
      'acme/../terraform-aws-trav',
      '../_git/terraform-aws-trav',
    ]) {
      const response = await publish({ identifier, 'oauth-token-id': inner });
      expect(response.status, identifier).toBe(422);
      expect(response.body.errors[0].source.pointer).toBe('/data/attributes/vcs-repo/identifier');
    }
    expect((await platform(server, 'GET', `/organizations/${ORG}/registry-modules?q=trav`)).body.data).toEqual([]);
  });

  it('runs git only over the transports the README lists, and git refuses others before connecting', async () => {
    for (const [base, transport] of [
      ['fd::3', 'fd'],
      ['ext::sh -c true', 'ext'],
    ] as const) {
      const response = await publish({ identifier: 'acme/terraform-aws-bucket', 'oauth-token-id': await connectionTo(base) });
      expect(response.status, base).toBe(422);
      expect(response.body.errors[0].detail).toContain('the repository could not be read');
      // git's own refusal (GIT_ALLOW_PROTOCOL): it never ran the command or read the descriptor.
      expect(response.body.errors[0].detail, base).toContain(`transport '${transport}' not allowed`);
    }
  });
});
