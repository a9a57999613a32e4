import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveRunUser, RunUserError } from '../../../src/adapters/executor/run-user.js';
import { TerraformExecutor } from '../../../src/adapters/executor/terraform.js';
import { openStore, type Store } from '../../../src/store/store.js';
import { requireTerraform } from '../../helpers/terraform.js';
import { planJob } from './plan-job.js';

const version = requireTerraform('the run user tests (a local-exec provisioner with the real CLI)');
const isRoot = process.getuid?.() === 0;
const live = new AbortController().signal;

describe('who runs execute as', () => {
  it('a root server runs them as nobody unless told otherwise; root only by explicit opt-in', () => {
    const nobody = resolveRunUser({ runUser: null, runAsRoot: 'false' }, 0);
    expect(nobody?.name).toBe('nobody');
    expect(nobody?.uid).not.toBe(0);
    expect(resolveRunUser({ runUser: '1234:5678', runAsRoot: 'false' }, 0)).toEqual({ name: '1234:5678', uid: 1234, gid: 5678 });
    expect(resolveRunUser({ runUser: null, runAsRoot: 'true' }, 0)).toBeNull();
    expect(() => resolveRunUser({ runUser: 'root', runAsRoot: 'false' }, 0)).toThrow(/UNDERSTUDY_RUN_AS_ROOT=true/);
    expect(() => resolveRunUser({ runUser: '0', runAsRoot: 'false' }, 0)).toThrow(RunUserError);
    expect(() => resolveRunUser({ runUser: 'no-such-user-31', runAsRoot: 'false' }, 0)).toThrow(/does not exist/);
  });

  it('a server that is not root runs them as itself, and cannot be asked for another user', () => {
    expect(resolveRunUser({ runUser: null, runAsRoot: 'false' }, 1000)).toBeNull();
    expect(() => resolveRunUser({ runUser: 'nobody', runAsRoot: 'false' }, 1000)).toThrow(/needs the server to run as root/);
  });
});

/** Prints who the provisioner is, what it sees of the server's environment, and whether it reaches the store. */
function probeConfig(storeFile: string): string {
  const store = JSON.stringify(storeFile);
  const directory = JSON.stringify(join(storeFile, '..'));
  return `
resource "terraform_data" "probe" {
  provisioner "local-exec" {
    command = <<-EOT
      echo "uid=$(id -u) groups=$(id -G)"
      echo "marker=$\${UNDERSTUDY_TEST_MARKER:-absent} admin=$\${UNDERSTUDY_ADMIN_TOKEN:-absent} home=$HOME"
      if cat ${store} > /dev/null 2>&1; then echo store=readable; else echo store=unreadable; fi
      if touch ${directory}/planted 2> /dev/null; then echo store-dir=writable; else echo store-dir=refused; fi
    EOT
  }
}
`;
}

describe.skipIf(version === null || !isRoot)('the terraform executor on a root server', () => {
  let store: Store;
  const saved = { marker: process.env.UNDERSTUDY_TEST_MARKER, admin: process.env.UNDERSTUDY_ADMIN_TOKEN };
  beforeAll(() => {
    store = openStore(join(mkdtempSync(join(tmpdir(), 'understudy-run-user-store-')), 'store.sqlite'));
    process.env.UNDERSTUDY_TEST_MARKER = 'marker-31-visible';
    process.env.UNDERSTUDY_ADMIN_TOKEN = 'admin-31-visible';
  });
  afterAll(() => {
    store.close();
    for (const [name, value] of [
      ['UNDERSTUDY_TEST_MARKER', saved.marker],
      ['UNDERSTUDY_ADMIN_TOKEN', saved.admin],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('keeps the store file private to the server', () => {
    expect(statSync(store.location).mode & 0o077).toBe(0);
  });

  it('a local-exec provisioner runs unprivileged, without the server environment, and cannot reach the store', async () => {
    const runUser = resolveRunUser({ runUser: null, runAsRoot: 'false' });
    const executor = new TerraformExecutor({ binary: 'terraform', pluginDir: null, version: version ?? '', runUser });
    const job = await planJob('run-user-probe', probeConfig(store.location));
    const planLog: string[] = [];
    const plan = await executor.plan(job, (text) => planLog.push(text), live);
    expect(plan.status, planLog.join('')).toBe('finished');
    const applyLog: string[] = [];
    const applied = await plan.prepared!.apply((text) => applyLog.push(text), live);
    const text = applyLog.join('');
    expect(applied.status, text).toBe('finished');

    const uid = /\(local-exec\): uid=(\d+) groups=([\d ]+)/.exec(text);
    expect(uid, text).not.toBeNull();
    expect(Number(uid![1])).toBe(runUser!.uid);
    expect(Number(uid![1])).not.toBe(0);
    expect(uid![2]!.split(' ').map(Number)).not.toContain(0);
    expect(text).toContain('marker=absent admin=absent');
    expect(text).not.toContain('home=/root');
    expect(text).toContain('store=unreadable');
    expect(text).toContain('store-dir=refused');
    expect(executor.activeDirectories).toBe(0);
  }, 120_000);
});
