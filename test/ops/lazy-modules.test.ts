import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, startProcess, tempDir, type Running } from './process.js';

// The build gives the modules a start-up does not use (LAZY_MODULES in scripts/build.mjs) stand-ins
// that load them on first use; code that reads one as a module loads (a top-level constant, a field
// initialiser) loads it at every start-up, and nothing else would say so. The probe, loaded with
// --require ahead of the server, writes to stderr each module a stand-in loads (they announce it on
// a diagnostics channel) and a line when the ready line goes to stdout: synchronous writes to one
// stream, so their order is the order in which they happened.
const READY = 'lazy module probe: ready';
const PROBE_SOURCE = `'use strict';
const { writeSync } = require('node:fs');
const { subscribe } = require('node:diagnostics_channel');
subscribe('understudy:lazy-module', (name) => writeSync(2, 'lazy module loaded: ' + String(name) + '\\n'));
const write = process.stdout.write;
let ready = false;
process.stdout.write = function probeReady(chunk, ...rest) {
  if (!ready && String(chunk).includes(' ready on ')) {
    ready = true;
    writeSync(2, ${JSON.stringify(`${READY}\n`)});
  }
  return write.call(this, chunk, ...rest);
};
`;

const loadedLazily = (stderr: string) => [...stderr.matchAll(/^lazy module loaded: (.+)$/gm)].map((match) => match[1]);

describe('modules loaded on first use', () => {
  let probe: string;
  let running: Running | undefined;
  beforeAll(() => {
    probe = join(tempDir(), 'lazy-module-probe.cjs');
    writeFileSync(probe, PROBE_SOURCE);
  });
  afterEach(async () => {
    await running?.stop();
    running = undefined;
  });
  const start = (store: string) =>
    startProcess({ command: [process.execPath, '--require', probe, MAIN], env: { UNDERSTUDY_PORT: '0', UNDERSTUDY_STORE: store } });

  it.each([
    ['a file store', () => join(tempDir(), 'understudy.sqlite')],
    ['an in-memory store', () => ':memory:'],
  ])('are not loaded by a start-up with %s', async (_name, store) => {
    running = await start(store());
    const stderr = running.stderr();
    expect(stderr).toContain(READY);
    expect(loadedLazily(stderr.slice(0, stderr.indexOf(READY)))).toEqual([]);
  });

  // The probe's own check: a request that needs the certificate schemas loads them, after ready.
  it('are loaded by the first request that needs them', async () => {
    running = await start(':memory:');
    const base = running.banner.exports.VAULT_ADDR as string;
    const headers = { 'x-vault-token': running.banner.exports.VAULT_TOKEN as string, 'content-type': 'application/json' };
    const mounted = await fetch(`${base}/v1/sys/mounts/lazy-pki`, { method: 'POST', headers, body: JSON.stringify({ type: 'pki' }) });
    expect(mounted.status).toBe(204);
    const root = await fetch(`${base}/v1/lazy-pki/root/generate/internal`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ common_name: 'Lazy Root', key_type: 'ec', ttl: '24h' }),
    });
    expect(root.status, await root.text()).toBe(200);
    const afterReady = loadedLazily(running.stderr().slice(running.stderr().indexOf(READY)));
    expect(afterReady).toEqual(expect.arrayContaining(['@peculiar/asn1-x509', '@peculiar/asn1-schema']));
  });
});
