import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { platform } from '../../helpers/app.js';
import { ORG, startWorld, type World } from '../workspaces/world.js';

/** What the Go client's organization tests and helpers expect. */
describe('organizations as the Go client sees them', () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());
  const createOrganization = (name: string) =>
    platform(world.server, 'POST', '/organizations', {
      body: { data: { type: 'organizations', attributes: { name, email: `${name}@tfe.local` } } },
    });

  it('stores and returns aggregated-commit-status-enabled, speculative-plan-management-enabled and remaining-testable-count', async () => {
    const created = await createOrganization('tst-settings');
    expect(created.body.data.attributes).toMatchObject({
      'aggregated-commit-status-enabled': false,
      'speculative-plan-management-enabled': true,
      'remaining-testable-count': 5,
    });
    for (const value of [true, false]) {
      const updated = await platform(world.server, 'PATCH', '/organizations/tst-settings', {
        body: {
          data: {
            type: 'organizations',
            attributes: { 'aggregated-commit-status-enabled': value, 'speculative-plan-management-enabled': value },
          },
        },
      });
      expect(updated.body.data.attributes).toMatchObject({
        'aggregated-commit-status-enabled': value,
        'speculative-plan-management-enabled': value,
      });
      const read = await platform(world.server, 'GET', '/organizations/tst-settings');
      expect(read.body.data.attributes['aggregated-commit-status-enabled']).toBe(value);
    }
    const refused = await platform(world.server, 'PATCH', '/organizations/tst-settings', {
      body: { data: { type: 'organizations', attributes: { 'aggregated-commit-status-enabled': 'yes' } } },
    });
    expect(refused.status).toBe(422);
  });

  it('accepts names up to 40 characters (the client tests use tst- and a UUID) and refuses longer ones', async () => {
    const forty = `tst-${'0123456789abcdef0123456789abcdef0123'}`;
    expect(forty).toHaveLength(40);
    expect((await createOrganization(forty)).status).toBe(201);
    const tooLong = await createOrganization(`${forty}x`);
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors[0]).toMatchObject({
      detail: 'name is too long (maximum is 40 characters)',
      source: { pointer: '/data/attributes/name' },
    });
    const rename = await platform(world.server, 'PATCH', `/organizations/${forty}`, {
      body: { data: { type: 'organizations', attributes: { name: `${forty}y` } } },
    });
    expect(rename.status).toBe(422);
  });

  it('lists waypoint-templates-and-addons in the entitlement set', async () => {
    const set = await platform(world.server, 'GET', `/organizations/${ORG}/entitlement-set`);
    expect(set.body.data.attributes).toHaveProperty('waypoint-templates-and-addons', false);
  });

  it("accepts terraform-version 0.10.0, as the Go client's workspace tests send it", async () => {
    const created = await platform(world.server, 'POST', `/organizations/${ORG}/workspaces`, {
      body: { data: { type: 'workspaces', attributes: { name: 'old-tool', 'terraform-version': '0.10.0' } } },
    });
    expect(created.status).toBe(201);
    // The spec dialect answers with the neutral name of the same attribute.
    expect(created.body.data.attributes['tool-version']).toBe('0.10.0');
  });
});

describe("plans and subscriptions the Go client's helpers set up", () => {
  let world: World;
  beforeAll(async () => {
    world = await startWorld();
  });
  afterAll(() => world.close());
  const featureSets = (q: string, token?: string) =>
    platform(world.server, 'GET', `/admin/feature-sets?q=${encodeURIComponent(q)}`, { token });
  const subscribe = (featureSetId: string, token?: string) =>
    platform(world.server, 'POST', `/admin/organizations/${ORG}/subscription`, {
      token,
      body: {
        data: {
          type: 'subscription',
          attributes: {
            'runs-ceiling': 10,
            'contract-start-at': '2026-01-01T00:00:00Z',
            'contract-user-limit': 1000,
            'contract-apply-limit': 5000,
          },
          relationships: { 'feature-set': { data: { type: 'feature-sets', id: featureSetId } } },
        },
      },
    });
  const entitlementSet = async () => (await platform(world.server, 'GET', `/organizations/${ORG}/entitlement-set`)).body.data.attributes;

  it('finds feature sets by name and switches entitlements with the plan', async () => {
    const free = await featureSets('Free');
    expect(free.status).toBe(200);
    expect(free.body.data).toHaveLength(1);
    expect(free.body.data[0]).toMatchObject({ type: 'feature-sets', attributes: { name: 'Free' } });
    expect((await featureSets('plus (entitlement)')).body.data[0].attributes.name).toBe('Plus (entitlement)');

    expect((await subscribe(free.body.data[0].id)).status).toBe(201);
    expect(await entitlementSet()).toMatchObject({ 'global-run-tasks': false, 'private-run-tasks': false, 'run-tasks': false });
    const noCodePermissions = async () => {
      const { permissions } = (await platform(world.server, 'GET', `/organizations/${ORG}`)).body.data.attributes;
      return { deploy: permissions['can-deploy-no-code-modules'], manage: permissions['can-manage-no-code-modules'] };
    };
    expect(await noCodePermissions()).toEqual({ deploy: false, manage: false });

    const business = (await featureSets('Business')).body.data[0];
    const subscribed = await subscribe(business.id);
    expect(subscribed.status).toBe(201);
    expect(subscribed.body.data).toMatchObject({
      type: 'subscriptions',
      attributes: { 'runs-ceiling': 10, 'contract-user-limit': 1000, 'contract-start-at': '2026-01-01T00:00:00.000Z' },
      relationships: { 'feature-set': { data: { id: business.id, type: 'feature-sets' } } },
    });
    expect(await entitlementSet()).toMatchObject({ 'global-run-tasks': true, 'private-run-tasks': true, 'run-tasks': true });
    // TestOrganizationsReadWithBusiness reads both no-code permissions as true.
    expect(await noCodePermissions()).toEqual({ deploy: true, manage: true });
    const read = await platform(world.server, 'GET', `/organizations/${ORG}/subscription`, { token: world.principals.owner });
    expect(read.body.data.relationships['feature-set'].data.id).toBe(business.id);
  });

  it("gives each plan the entitlements the client's tests read after subscribing", async () => {
    const planId = async (q: string) => (await featureSets(q)).body.data[0].id as string;
    expect((await subscribe(await planId('Trial'))).status).toBe(201);
    expect(await entitlementSet()).toMatchObject({ 'global-run-tasks': false, 'run-tasks': true });
    const task = await platform(world.server, 'POST', `/organizations/${ORG}/tasks`, {
      body: {
        data: {
          type: 'tasks',
          attributes: {
            name: 'trial-task',
            description: 'a task on a trial plan',
            url: 'https://example.com/hook',
            category: 'task',
            'global-configuration': { enabled: true, stages: ['pre_plan'], 'enforcement-level': 'mandatory' },
          },
        },
      },
    });
    expect(task.status).toBe(201);
    expect(task.body.data.attributes['global-configuration']).toBeNull();

    for (const plan of ['Plus (entitlement)', 'Standard (entitlement)']) {
      expect((await subscribe(await planId(plan))).status).toBe(201);
      expect(await entitlementSet()).toMatchObject({
        'waypoint-templates-and-addons': true,
        'waypoint-actions': false,
        sentinel: true,
        'audit-logging': true,
      });
    }
  });

  it('answers only site administrators, and refuses an unknown plan without changing anything', async () => {
    expect((await featureSets('Business', world.principals.owner)).status).toBe(404);
    const business = (await featureSets('Business')).body.data[0];
    expect((await subscribe(business.id, world.principals.owner)).status).toBe(404);
    const malformedBody = { body: { data: { type: 'subscription', attributes: { 'runs-ceiling': 'ten' } } } };
    expect(
      (
        await platform(world.server, 'POST', `/admin/organizations/${ORG}/subscription`, {
          token: world.principals.owner,
          ...malformedBody,
        })
      ).status,
    ).toBe(404);
    const malformed = await platform(world.server, 'POST', `/admin/organizations/${ORG}/subscription`, malformedBody);
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors[0].source).toEqual({ pointer: '/data/attributes/runs-ceiling' });
    const before = await entitlementSet();
    const unknown = await subscribe('fs-nope');
    expect(unknown.status).toBe(422);
    expect(await entitlementSet()).toEqual(before);
    expect((await featureSets('Nothing-like-this')).body.data).toEqual([]);
  });
});
