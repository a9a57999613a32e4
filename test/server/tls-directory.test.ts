import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareTls, TlsError, type TlsSettings } from '../../src/server/tls/material.js';

// Issue 31 item 7: the TLS directory holds the CA's private key. One others can write is
// tightened, and a CA key found in it (or a key file others can write) is refused, not trusted.

const settings = (tlsDir: string): TlsSettings => ({
  tls: 'auto',
  tlsHosts: null,
  tlsCert: null,
  tlsKey: null,
  tlsDir,
  store: ':memory:',
  host: '127.0.0.1',
});
const fresh = () => mkdtempSync(join(tmpdir(), 'understudy-tls-dir-'));
const modeOf = (path: string) => statSync(path).mode & 0o777;

describe('UNDERSTUDY_TLS_DIR permissions', () => {
  it('tightens an empty directory others can write to 0700, then makes its CA there', () => {
    const dir = fresh();
    chmodSync(dir, 0o777);
    const material = prepareTls(settings(dir));
    expect(material?.source).toBe('auto');
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, 'ca-key.pem'))).toBe(0o600);
  });

  it('refuses a CA key found in a directory others could write, at every start until it is removed', () => {
    const dir = fresh();
    prepareTls(settings(dir));
    chmodSync(dir, 0o777);
    expect(() => prepareTls(settings(dir))).toThrow(TlsError);
    expect(() => prepareTls(settings(dir))).toThrow(/writable by others \(mode 0777\), so its ca-key\.pem cannot be trusted/);
    rmSync(join(dir, 'ca-key.pem'));
    rmSync(join(dir, 'ca.pem'));
    expect(prepareTls(settings(dir))?.source).toBe('auto');
    expect(modeOf(dir)).toBe(0o700);
  });

  it('refuses a CA key file others can write', () => {
    const dir = fresh();
    prepareTls(settings(dir));
    chmodSync(join(dir, 'ca-key.pem'), 0o666);
    expect(() => prepareTls(settings(dir))).toThrow(/ca-key\.pem others can write \(mode 0666\)/);
  });

  it('still uses its own CA from a private directory across starts', () => {
    const dir = fresh();
    const first = prepareTls(settings(dir));
    writeFileSync(join(dir, 'unrelated'), 'x');
    const second = prepareTls(settings(dir));
    expect(second?.caFile).toBe(first?.caFile);
  });
});
