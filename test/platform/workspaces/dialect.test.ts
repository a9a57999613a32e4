import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, startWorld, type World } from './world.js';

const createWorkspace = (world: World, attributes: Record<string, unknown>) =>
  platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, { body: { data: { type: 'workspaces', attributes } } });
const createTask = (world: World, name: string, extra: Record<string, unknown> = {}) =>
  platform(world.server, 'POST', `/organizations/${ORG}/tasks`, {
    body: { data: { type: 'tasks', attributes: { name, url: 'http://127.0.0.1:9/', category: 'task', ...extra } } },
  });
const inviteWithoutTeams = (world: World, email: string) =>
  platform(world.server, 'POST', `/organizations/${ORG}/organization-memberships`, {
    body: { data: { type: 'organization-memberships', attributes: { email } } },
  });

/** The same requests against both dialects: spellings and the behaviours listed in dialect-behaviours.ts. */
describe.each([
  { dialect: 'spec', version: 'tool-version', source: 'svc-api', attachments: 'tasks' },
  { dialect: 'upstream', version: 'terraform-version', source: 'tfe-api', attachments: 'workspace-tasks' },
])('the $dialect dialect', ({ dialect, version, source, attachments }) => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld({ UNDERSTUDY_DIALECT: dialect });
  });
  afterAll(() => world.close());
  const upstream = dialect === 'upstream';

  it(`spells the version ${version} and the source ${source}, and accepts either spelling on input`, async () => {
    const viaSpec = await createWorkspace(world, { name: 'via-spec', 'tool-version': '1.4.7' });
    const viaUpstream = await createWorkspace(world, { name: 'via-upstream', 'terraform-version': '1.5.7' });
    expect(viaSpec.body.data.attributes[version]).toBe('1.4.7');
    expect(viaUpstream.body.data.attributes[version]).toBe('1.5.7');
    expect(viaSpec.body.data.attributes[upstream ? 'tool-version' : 'terraform-version']).toBeUndefined();
    expect(viaSpec.body.data.attributes.source).toBe(source);
    const invalid = await createWorkspace(world, { name: 'bad-version', 'terraform-version': 'nonexisting' });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors[0].source.pointer).toBe(`/data/attributes/${version}`);
  });

  it(`names the run task attachments relationship ${attachments}`, async () => {
    const task = await createTask(world, 'named', { description: 'd' });
    expect(Object.keys(task.body.data.relationships)).toContain(attachments);
    expect(Object.keys(task.body.data.relationships)).not.toContain(upstream ? 'tasks' : 'workspace-tasks');
  });

  it(upstream ? 'accepts a run task with a null description' : 'requires a run task description', async () => {
    expect((await createTask(world, 'no-description', { description: null })).status).toBe(upstream ? 201 : 422);
  });

  it(upstream ? 'accepts an invitation without teams' : 'requires a team in an invitation', async () => {
    expect((await inviteWithoutTeams(world, 'teamless@example.test')).status).toBe(upstream ? 201 : 422);
  });

  it(
    upstream
      ? 'keeps assessments-enabled on an update that omits it (hosted)'
      : 'resets assessments-enabled on an update that omits it (hosted)',
    async () => {
      // The attribute is hosted-only, so this behaviour shows on the hosted edition.
      const hosted = await startWorld({ UNDERSTUDY_DIALECT: dialect, UNDERSTUDY_EDITION: 'hosted' });
      try {
        const created = await createWorkspace(hosted, { name: 'assessed', 'assessments-enabled': true });
        expect(created.body.data.attributes['assessments-enabled']).toBe(true);
        const updated = await platform(hosted.server, 'PATCH', `/workspaces/${created.body.data.id}`, {
          body: { data: { type: 'workspaces', attributes: { description: 'x' } } },
        });
        expect(updated.body.data.attributes['assessments-enabled']).toBe(upstream);
      } finally {
        await hosted.close();
      }
    },
  );

  it(`${upstream ? 'shows' : 'leaves out'} the GitHub App installation id of a VCS repo`, async () => {
    const created = await createWorkspace(world, {
      name: 'vcs',
      'vcs-repo': { 'github-app-installation-id': 'ghain-1', identifier: 'a/b' },
    });
    expect(created.status).toBe(201);
    expect('github-app-installation-id' in created.body.data.attributes['vcs-repo']).toBe(upstream);
  });
});
