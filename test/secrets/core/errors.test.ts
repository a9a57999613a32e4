import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { missingDataFields, multierror, multierrorText, POLICY_DENIED } from '../../../src/secrets/framework/errors.js';

/** Every TypeScript file under a directory, recursively. */
function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('secrets error texts', () => {
  it('frames one message and several messages as Go multierror does', () => {
    expect(multierrorText(['permission denied'])).toBe('1 error occurred:\n\t* permission denied\n\n');
    expect(multierrorText(['a', 'b'])).toBe('2 errors occurred:\n\t* a\n\t* b\n\n');
  });

  it('gives the sentinels their status and framed message', () => {
    expect(POLICY_DENIED).toMatchObject({ status: 403, options: { messages: ['1 error occurred:\n\t* permission denied\n\n'] } });
    expect(missingDataFields()).toMatchObject({ status: 500, options: { messages: ['1 error occurred:\n\t* missing data fields\n\n'] } });
    expect(multierror(405, 'unsupported operation').options.messages).toEqual(['1 error occurred:\n\t* unsupported operation\n\n']);
  });

  it('builds the framing in one place only', () => {
    const allowed = new Set([join('src', 'secrets', 'framework', 'errors.ts')]);
    const handBuilt = sourceFiles(join('src', 'secrets')).filter(
      (path) => !allowed.has(path) && /errors? occurred/.test(readFileSync(path, 'utf8')),
    );
    expect(handBuilt).toEqual([]);
  });
});
