import { readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunTransition } from '../../../src/platform/runs/events.js';
import type { PhaseHook, PhaseStart, PhaseVerdict } from '../../../src/platform/runs/phase-hooks.js';
import { platform, startServer, type TestServer } from '../../helpers/app.js';
import { action, createRun, newWorkspace, ORG, simpleConfig, uploadConfiguration, waitFor } from './helpers.js';

let server: TestServer;
/** What the hook does, per workspace name; workspaces without an entry pass untouched. */
const behaviours = new Map<string, (start: PhaseStart) => Promise<PhaseVerdict>>();
const hook: PhaseHook = {
  name: 'test hook',
  start: (start) => behaviours.get(start.names.workspace.name)?.(start) ?? Promise.resolve({ kind: 'proceed' }),
};
const transitions: RunTransition[] = [];

beforeAll(async () => {
  server = await startServer({ UNDERSTUDY_EXECUTOR: 'simulated' });
  const { engine } = server.app.platform.services.runs;
  engine.addPhaseHook(hook);
  // A listener that throws, and one that rejects: neither may stall or break a run.
  engine.onTransition(() => {
    throw new Error('listener failure');
  });
  engine.onTransition(async () => Promise.reject(new Error('async listener failure')));
  engine.onTransition((event) => void transitions.push(event));
});
afterAll(async () => server.close());

const phaseLog = async (runId: string, kind: 'plan' | 'apply') => {
  const shown = await platform(server, 'GET', `/runs/${runId}?include=${kind}`);
  const phase = shown.body.included[0];
  return { status: phase.attributes.status as string, log: await (await fetch(phase.attributes['log-read-url'])).text() };
};

describe('phase hooks', () => {
  it("sees the run's names and job; its environment and variables reach that phase's job; finish runs at each phase's end", async () => {
    const seen: {
      phase: string;
      names: PhaseStart['names'];
      environment: string[];
      file: string;
      mode: number;
      dirMode: number;
      text: string;
    }[] = [];
    const finished: string[] = [];
    const files: string[] = [];
    behaviours.set('hooked', async (start) => {
      const file = await start.writeCredentialFile('token', `file-for-${start.phase}`);
      files.push(file);
      seen.push({
        phase: start.phase,
        names: start.names,
        environment: [...start.environment.keys()],
        file,
        mode: statSync(file).mode & 0o777,
        dirMode: statSync(dirname(file)).mode & 0o777,
        text: readFileSync(file, 'utf8'),
      });
      const token = `t0ken-for-${start.phase}`;
      start.log(`hook says: ${token}\n`);
      return {
        kind: 'proceed',
        environment: [{ key: `HOOK_${start.phase.toUpperCase()}`, value: token, hcl: false, sensitive: true }],
        variables: start.phase === 'plan' ? [{ key: 'greeting', value: 'from-hook', hcl: false, sensitive: false }] : [],
        secrets: [token],
        finish: async () => void finished.push(start.phase),
      };
    });
    const ws = await newWorkspace(server, 'hooked', { 'auto-apply': true });
    await platform(server, 'POST', `/workspaces/${ws}/vars`, {
      body: { data: { type: 'vars', attributes: { key: 'WORKSPACE_ENV', value: 'w', category: 'env' } } },
    });
    await uploadConfiguration(
      server,
      ws,
      'variable "greeting" {\n  default = "unset"\n}\nresource "terraform_data" "a" {}\noutput "greeting" {\n  value = var.greeting\n}\n',
    );
    const id = (await createRun(server, ws)).body.data.id as string;
    await waitFor(server, id, 'applied');

    expect(seen.map((entry) => entry.phase)).toEqual(['plan', 'apply']);
    expect(seen[0]!.names).toMatchObject({
      organization: { name: ORG },
      project: { name: 'Default Project' },
      workspace: { id: ws, name: 'hooked' },
    });
    expect(seen[0]!.environment).toEqual(['WORKSPACE_ENV']);
    expect(seen.map((entry) => [entry.mode, entry.dirMode, entry.text])).toEqual([
      [0o600, 0o700, 'file-for-plan'],
      [0o600, 0o700, 'file-for-apply'],
    ]);
    // One path for the run: a saved plan's variables name the files the apply gets.
    expect(files[1]).toBe(files[0]);
    expect(finished).toEqual(['plan', 'apply']);
    // The files and their directory went with each phase.
    expect(statSync(dirname(files[0]!), { throwIfNoEntry: false })).toBeUndefined();

    const plan = await phaseLog(id, 'plan');
    expect(plan.log).toContain('Environment added for this phase: HOOK_PLAN\n');
    expect(plan.log).toContain('hook says: (sensitive value)');
    expect(plan.log).not.toContain('t0ken-for-plan');
    const apply = await phaseLog(id, 'apply');
    expect(apply.log).toContain('Environment added for this phase: HOOK_APPLY\n');
    expect(apply.log).not.toContain('HOOK_PLAN');
    expect(apply.log).not.toContain('t0ken-for-apply');
    const outputs = await platform(server, 'GET', `/workspaces/${ws}/current-state-version?include=outputs`);
    expect(outputs.body.included[0].attributes).toMatchObject({ name: 'greeting', value: 'from-hook' });
  });

  it('an error verdict errors the run with its message in the phase log; hooks that proceeded still finish', async () => {
    const finished: string[] = [];
    behaviours.set('refused', async (start) => {
      if (start.phase === 'plan') return { kind: 'error', message: 'no credentials for this workspace' };
      return { kind: 'proceed' };
    });
    const id = await (async () => {
      const ws = await newWorkspace(server, 'refused');
      await uploadConfiguration(server, ws, simpleConfig('r'));
      return (await createRun(server, ws)).body.data.id as string;
    })();
    await waitFor(server, id, 'errored');
    const plan = await phaseLog(id, 'plan');
    expect(plan.status).toBe('errored');
    expect(plan.log).toContain('\nError: no credentials for this workspace\n');
    expect((await phaseLog(id, 'apply')).status).toBe('unreachable');

    // At the apply: a first hook answer proceeds (its finish must run), a second refuses.
    behaviours.set('refused-apply', async (start) => {
      if (start.phase === 'plan') return { kind: 'proceed', finish: async () => void finished.push('plan') };
      return { kind: 'error', message: 'the apply role is missing' };
    });
    const ws = await newWorkspace(server, 'refused-apply', { 'auto-apply': true });
    await uploadConfiguration(server, ws, simpleConfig('ra'));
    const second = (await createRun(server, ws)).body.data.id as string;
    await waitFor(server, second, 'errored');
    const apply = await phaseLog(second, 'apply');
    expect(apply.status).toBe('errored');
    expect(apply.log).toContain('Error: the apply role is missing');
    expect(finished).toEqual(['plan']);
    const workspace = await platform(server, 'GET', `/workspaces/${ws}`);
    expect(workspace.body.data.attributes.locked).toBe(false);
    expect(workspace.body.data.relationships['current-state-version'].data).toBeNull();
  });

  it('a hook that throws refuses the phase with its message', async () => {
    behaviours.set('throwing', async () => {
      throw new Error('the token endpoint is down');
    });
    const ws = await newWorkspace(server, 'throwing');
    await uploadConfiguration(server, ws, simpleConfig('t'));
    const id = (await createRun(server, ws)).body.data.id as string;
    await waitFor(server, id, 'errored');
    expect((await phaseLog(id, 'plan')).log).toContain('Error: test hook: the token endpoint is down');
  });

  it('finish runs when the run is canceled during the phase', async () => {
    let started: () => void = () => undefined;
    const startedPromise = new Promise<void>((resolve) => (started = resolve));
    let finishes = 0;
    behaviours.set('canceled', (start) => {
      started();
      // The hook waits on the run's signal, as a hook talking to another service would.
      return new Promise((resolve) =>
        start.signal.addEventListener('abort', () => resolve({ kind: 'proceed', finish: async () => void (finishes += 1) })),
      );
    });
    const ws = await newWorkspace(server, 'canceled');
    await uploadConfiguration(server, ws, simpleConfig('c'));
    const id = (await createRun(server, ws)).body.data.id as string;
    await startedPromise;
    expect((await action(server, id, 'cancel')).status).toBe(202);
    await waitFor(server, id, 'canceled');
    expect(finishes).toBe(1);
  });
});

describe('transition events', () => {
  it('tells listeners every committed status change in order, from creation; throwing listeners do not break the run', async () => {
    const ws = await newWorkspace(server, 'events', { 'auto-apply': true });
    await uploadConfiguration(server, ws, simpleConfig('e'));
    const id = (await createRun(server, ws)).body.data.id as string;
    await waitFor(server, id, 'applied');
    const mine = transitions.filter((event) => event.run.id === id);
    expect(mine.map((event) => [event.from, event.to])).toEqual([
      [null, 'pending'],
      ['pending', 'plan_queued'],
      ['plan_queued', 'planning'],
      ['planning', 'planned'],
      ['planned', 'confirmed'],
      ['confirmed', 'apply_queued'],
      ['apply_queued', 'applying'],
      ['applying', 'applied'],
    ]);
    // Each event carries the run as committed with that status.
    expect(mine.every((event) => event.run.status === event.to)).toBe(true);
  });
});
