import { describe, expect, it } from 'vitest';
import { checkToolVersion, KNOWN_RELEASES, LATEST_RELEASE } from '../../../src/platform/tool-versions/releases.js';

describe('tool versions', () => {
  it('knows a list of releases whose newest is the default', () => {
    expect(KNOWN_RELEASES).toContain('0.11.0');
    // The Go client's workspace tests pin these; the list reaches back to the first release.
    expect(KNOWN_RELEASES).toContain('0.10.0');
    expect(KNOWN_RELEASES).toContain('0.1.0');
    expect(KNOWN_RELEASES).not.toContain('0.3.2');
    expect(KNOWN_RELEASES).toContain('1.5.7');
    expect(KNOWN_RELEASES.at(-1)).toBe(LATEST_RELEASE);
  });

  it.each([
    ['1.5.7', '1.5.7'],
    ['v1.5.7', '1.5.7'],
    ['latest', LATEST_RELEASE],
    ['= 1.2.3', '1.2.3'],
    ['~> 1.4.0', '1.4.7'],
    ['~> 1.4', LATEST_RELEASE],
    ['~> 0.12', '0.15.5'],
    ['>= 1.0, < 1.2', '1.1.9'],
    ['> 1.3.9, <= 1.3.10', '1.3.10'],
    ['< 0.12', '0.11.15'],
    ['0.10.0', '0.10.0'],
    ['~> 0.10.0', '0.10.8'],
    ['< 0.4', '0.3.7'],
    ['!= 1.12.2, >= 1.12, < 1.13', '1.12.1'],
    // A partial version is a constraint with the missing parts zero, as the version library reads it.
    ['1.5', '1.5.0'],
    // The 1.13 and 1.14 lines the Go client's newer tests pin.
    ['1.13.5', '1.13.5'],
    ['1.14.0', '1.14.0'],
    ['~> 1.13.0', '1.13.5'],
  ])('%s selects %s', (value, selected) => {
    expect(checkToolVersion(value)).toEqual({ ok: true, selected });
  });

  it.each(['nonexisting', '9.9.9', '1.5.99', '0.5.2', '0.0.1', '', '>= 2', '~> 1.4.0, < 1.4', '>> 1.0', '1.5.7-beta'])(
    'refuses %j',
    (value) => {
      expect(checkToolVersion(value).ok).toBe(false);
    },
  );

  it('checks against the releases in force when given them (an operator may add some)', () => {
    expect(checkToolVersion('1.0.4242', [...KNOWN_RELEASES, '1.0.4242'])).toEqual({ ok: true, selected: '1.0.4242' });
    expect(checkToolVersion('~> 1.0.4000', [...KNOWN_RELEASES, '1.0.4242'])).toEqual({ ok: true, selected: '1.0.4242' });
    expect(checkToolVersion('1.5.7', ['1.5.6']).ok).toBe(false);
  });
});
