import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, platform, startServer, type TestServer } from '../../helpers/app.js';
import { createRun, newWorkspace, ORG, simpleConfig, uploadConfiguration, waitFor } from '../../platform/runs/helpers.js';
import { KEY, startTaskService } from '../../platform/runs/task-service.js';
import { launch, skipWithoutChromium, text } from './chromium.js';

const skip = skipWithoutChromium("the inspector's run view tests");

/** A sensitive environment variable's value: the page must never show it. */
const SECRET = 'env-secret-never-shown';

/** A workspace with a mandatory run task at pre- and post-plan, a passing sentinel policy and a sensitive variable. */
async function guardedWorkspace(server: TestServer, name: string, taskUrl: string): Promise<string> {
  const ws = await newWorkspace(server, name, { 'auto-apply': true });
  const task = await platform(server, 'POST', `/organizations/${ORG}/tasks`, {
    body: {
      data: { type: 'tasks', attributes: { name: 'checker', url: taskUrl, description: 'checks', category: 'task', 'hmac-key': KEY } },
    },
  });
  expect(task.status).toBe(201);
  const attached = await platform(server, 'POST', `/workspaces/${ws}/tasks`, {
    body: {
      data: {
        type: 'workspace-tasks',
        attributes: { 'enforcement-level': 'mandatory', stages: ['pre_plan', 'post_plan'] },
        relationships: { task: { data: { type: 'tasks', id: task.body.data.id } } },
      },
    },
  });
  expect(attached.status).toBe(201);
  const policy = await platform(server, 'POST', `/organizations/${ORG}/policies`, {
    body: { data: { type: 'policies', attributes: { name: 'allowed', 'enforcement-level': 'hard-mandatory' } } },
  });
  expect(policy.status).toBe(201);
  const uploaded = await fetch(`${server.baseUrl}/api/v2/policies/${policy.body.data.id}/upload`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/octet-stream' },
    body: 'main = rule { true }\n',
  });
  expect(uploaded.status).toBe(204);
  const set = await platform(server, 'POST', `/organizations/${ORG}/policy-sets`, {
    body: {
      data: {
        type: 'policy-sets',
        attributes: { name: 'guard' },
        relationships: {
          policies: { data: [{ type: 'policies', id: policy.body.data.id }] },
          workspaces: { data: [{ type: 'workspaces', id: ws }] },
        },
      },
    },
  });
  expect(set.status).toBe(201);
  const variable = await platform(server, 'POST', `/workspaces/${ws}/vars`, {
    body: { data: { type: 'vars', attributes: { key: 'API_KEY', value: SECRET, category: 'env', sensitive: true } } },
  });
  expect(variable.status).toBe(201);
  return ws;
}

const rowIds = (page: Page) => page.$$eval('#runs tbody tr', (rows) => rows.map((row) => (row as HTMLElement).dataset.id));

describe.skipIf(skip)("the inspector's run view in headless Chromium", () => {
  let server: TestServer;
  let browser: Browser;
  let tasks: Awaited<ReturnType<typeof startTaskService>>;
  const profile = mkdtempSync(join(tmpdir(), 'understudy-chromium-'));
  beforeAll(async () => {
    server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated', UNDERSTUDY_RUN_PROGRESSION: 'immediate' });
    tasks = await startTaskService(() => 'passed');
    browser = await launch(profile);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    tasks?.server.close();
    await server?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  it('the run link opens the run: timeline, events, logs, task stages, policy checks; the list opens the next one', async () => {
    const ws = await guardedWorkspace(server, 'browsed', tasks.url);
    await uploadConfiguration(server, ws, simpleConfig('hello'));
    const applied = (await createRun(server, ws, { message: 'first' })).body.data.id as string;
    await waitFor(server, applied, 'applied');
    const speculative = (await createRun(server, ws, { 'plan-only': true, message: 'second' })).body.data.id as string;
    await waitFor(server, speculative, 'planned_and_finished');

    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    const opened = await page.goto(`${server.baseUrl}/app/understudy/browsed/runs/${applied}`);
    expect(opened?.status()).toBe(200);
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(`/_emulator/ui?run=${applied}`);
    await page.waitForSelector('#run[data-status="applied"]');
    expect(await text(page, '#run-id')).toBe(applied);
    expect(await text(page, '#run-summary')).toContain('understudy/browsed');
    const timeline = await text(page, '#run-timeline tbody');
    for (const status of ['plan_queued', 'planning', 'policy_checked', 'applying', 'applied']) expect(timeline).toContain(status);
    expect(await text(page, '#run-events tbody')).toContain('queued');
    // simpleConfig declares one resource and one with count = 2.
    expect(await text(page, '#plan-log')).toContain('Plan: 3 to add, 0 to change, 0 to destroy.');
    expect(await text(page, '#apply-log')).toContain('Apply complete! Resources: 3 added');
    // Structured run output (the workspace's default) is shown as its lines' messages, not as JSON.
    expect(await text(page, '#plan-log')).toContain('terraform_data.b[0]: Plan to create');
    expect(await text(page, '#apply-log')).not.toContain('"@level"');
    const stages = await text(page, '#run-task-stages tbody');
    for (const part of ['pre_plan', 'post_plan', 'checker', 'mandatory', 'passed', 'checked at post_plan']) expect(stages).toContain(part);
    expect(await text(page, '#run-policy-checks tbody')).toContain('passed');

    // The list, for this workspace, newest first; a click opens the other run.
    await page.type('#runs-workspace', 'understudy/browsed');
    await page.click('#runs-filter button');
    await page.waitForFunction(() => document.querySelector('#runs-scope')?.textContent === 'understudy/browsed');
    expect(await rowIds(page)).toEqual([speculative, applied]);
    await page.click(`#runs tbody tr[data-id="${speculative}"] a`);
    await page.waitForSelector('#run[data-status="planned_and_finished"]');
    expect(await text(page, '#run-id')).toBe(speculative);
    expect(await page.evaluate(() => location.search)).toBe(`?run=${speculative}`);
    expect(await text(page, '#run-summary')).toContain('speculative plan');

    expect(await page.content()).not.toContain(SECRET);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("a workspace link lists that workspace's runs", async () => {
    const ws = await newWorkspace(server, 'listed-in-browser');
    await uploadConfiguration(server, ws, simpleConfig('listed'));
    const only = (await createRun(server, ws, { 'plan-only': true })).body.data.id as string;
    await waitFor(server, only, 'planned_and_finished');
    const page = await browser.newPage();
    await page.goto(`${server.baseUrl}/app/understudy/workspaces/listed-in-browser`);
    await page.waitForFunction(() => document.querySelector('#runs-scope')?.textContent === 'understudy/listed-in-browser');
    await page.waitForSelector(`#runs tbody tr[data-id="${only}"]`);
    expect(await rowIds(page)).toEqual([only]);
    expect(await page.$eval('#run', (section) => (section as HTMLElement).hidden)).toBe(true);
    await page.close();
  }, 60_000);
});
