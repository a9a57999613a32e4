import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

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

export const HMAC = /^hmac-sha256:[0-9a-f]{64}$/;
