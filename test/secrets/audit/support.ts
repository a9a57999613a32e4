import { createHmac } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AuditDeviceTable } from '../../../src/secrets/audit/devices.js';
import type { TestServer } from '../../helpers/app.js';

/** A fresh directory for audit files. */
export const auditDir = (): string => mkdtempSync(join(tmpdir(), 'understudy-audit-'));

/** The records a device wrote, parsed, after stripping `prefix` from each line. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- records are asserted field by field
export function records(path: string, prefix = ''): any[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      if (!line.startsWith(prefix)) throw new Error(`a line without the prefix ${JSON.stringify(prefix)}: ${line}`);
      return JSON.parse(line.slice(prefix.length));
    });
}

/** The salt the device at `path` hashes with, read from the server's store (it never leaves over HTTP). */
export function saltOf(server: TestServer, path: string): string {
  const device = new AuditDeviceTable(server.app.runtime.store.db).get(path);
  if (!device) throw new Error(`no audit device at ${path}`);
  return device.salt;
}

/**
 * What a device writes for `value`: `hmac-sha256:` and the hex HMAC-SHA256 of the value keyed by
 * the device's salt, computed here with node:crypto, not by the server under test.
 */
export const expectedHmac = (salt: string, value: string): string =>
  `hmac-sha256:${createHmac('sha256', salt).update(value).digest('hex')}`;
