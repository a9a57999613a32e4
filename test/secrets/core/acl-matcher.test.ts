import { describe, expect, it } from 'vitest';
import { Acl } from '../../../src/secrets/acl/acl.js';
import { capabilityNames, parsePolicy } from '../../../src/secrets/acl/policy.js';
import type { Operation } from '../../../src/secrets/framework/types.js';

const acl = (...policies: string[]) => new Acl(policies.map(parsePolicy));
const caps = (subject: Acl, path: string, operation: Operation = 'read') => capabilityNames(subject.capabilities(path, operation));

describe('the ACL matcher', () => {
  const priorities = acl(`
    path "secret/*"          { capabilities = ["read"] }
    path "secret/foo/*"      { capabilities = ["list"] }
    path "secret/foo/bar"    { capabilities = ["update"] }
    path "secret/+/bar"      { capabilities = ["create"] }
    path "secret/+/+/baz"    { capabilities = ["delete"] }
    path "secret/foo/+/baz"  { capabilities = ["sudo"] }
    path "secret/fo*"        { capabilities = ["patch"] }
    path "kv/+/data"         { capabilities = ["read"] }
    path "kv/+/data*"        { capabilities = ["update"] }
    path "kv/b*"             { capabilities = ["delete"] }
  `);

  // path → capabilities of the rule that should win, with the priority rule that decides it.
  const table: [string, string[], string][] = [
    ['secret/foo/bar', ['update'], 'an exact rule wins over every wildcard'],
    ['secret/x/bar', ['create'], 'a + segment beats the shorter * prefix (first wildcard comes later)'],
    ['secret/foo/qux', ['list'], 'the longest * prefix'],
    ['secret/foo/x/baz', ['sudo'], 'fewer wildcards earlier: secret/foo/+/baz over secret/+/+/baz'],
    ['secret/y/x/baz', ['delete'], 'the only + pattern that matches'],
    ['secret/fox', ['patch'], 'secret/fo* has its glob later than secret/*'],
    ['secret/other', ['read'], 'fallback to the shortest prefix'],
    ['kv/a/data', ['read'], 'non-prefix beats prefix when the first wildcard is at the same place'],
    ['kv/a/database', ['update'], 'a + pattern ending in * matches by prefix in its last segment'],
    ['kv/b/data', ['delete'], 'kv/b* has its glob (at 4) later than the + of kv/+/data (at 3)'],
    ['nothing/here', [], 'no rule at all'],
  ];

  it.each(table)('%s → %j (%s)', (path, expected) => {
    expect(caps(priorities, path)).toEqual(expected.length === 0 ? [] : expected);
  });

  it('merges wrapping bounds to the lesser of each and checks the asked TTL against them', () => {
    const merged = acl(
      'path "s/x" {\n  capabilities = ["read"]\n  min_wrapping_ttl = 60\n  max_wrapping_ttl = 600\n}',
      'path "s/x" {\n  capabilities = ["list"]\n  min_wrapping_ttl = 30\n  max_wrapping_ttl = 300\n}',
    );
    expect(merged.permissions('s/x')).toEqual({ capabilities: 4 | 32, minWrappingTtl: 30, maxWrappingTtl: 300 });
    expect(merged.allows('s/x', 'read', false)).toBe(false);
    expect(merged.allows('s/x', 'read', false, 20)).toBe(false);
    expect(merged.allows('s/x', 'read', false, 300)).toBe(true);
    expect(merged.allows('s/x', 'read', false, 301)).toBe(false);
    expect(acl('path "s/y" { capabilities = ["read"] }').allows('s/y', 'read', false, 9999)).toBe(true);
  });

  it('breaks the last tie by length, then lexicographically', () => {
    const tie = acl('path "a/+/b*" { capabilities = ["read"] }\npath "a/+/bc*" { capabilities = ["update"] }');
    expect(caps(tie, 'a/x/bcd')).toEqual(['update']);
  });

  it('lets a list of `x/` use an exact rule on `x`, and a prefix rule on `x/*`', () => {
    const exact = acl('path "pki/roles" { capabilities = ["list"] }');
    expect(exact.allows('pki/roles/', 'list', false)).toBe(true);
    expect(exact.allows('pki/roles/', 'read', false)).toBe(false);
    const prefix = acl('path "pki/roles/*" { capabilities = ["list"] }');
    expect(prefix.allows('pki/roles/', 'list', false)).toBe(true);
  });

  it('unions capabilities across policies, and deny wins', () => {
    const union = acl('path "s/x" { capabilities = ["read"] }', 'path "s/x" { capabilities = ["update"] }');
    expect(caps(union, 's/x')).toEqual(['read', 'update']);
    const denied = acl(
      'path "s/x" { capabilities = ["read"] }',
      'path "s/x" { capabilities = ["deny"] }',
      'path "s/x" { capabilities = ["update"] }',
    );
    expect(caps(denied, 's/x')).toEqual(['deny']);
    expect(denied.allows('s/x', 'read', false)).toBe(false);
  });

  it('needs the operation capability and sudo on root-protected paths', () => {
    const subject = acl(
      'path "sys/leases/revoke-prefix/*" { capabilities = ["update"] }',
      'path "sys/leases/lookup/*" { capabilities = ["list", "sudo"] }',
    );
    expect(subject.allows('sys/leases/revoke-prefix/db/', 'update', true)).toBe(false);
    expect(subject.allows('sys/leases/revoke-prefix/db/', 'update', false)).toBe(true);
    expect(subject.allows('sys/leases/lookup/db/', 'list', true)).toBe(true);
    expect(subject.hasSudo('sys/leases/lookup/db/')).toBe(true);
  });

  it('maps operations to capabilities', () => {
    const subject = acl('path "c/*" { capabilities = ["create"] }');
    const matrix: [Operation, boolean][] = [
      ['create', true],
      ['update', false],
      ['read', false],
      ['delete', false],
      ['list', false],
    ];
    for (const [operation, allowed] of matrix) expect([operation, subject.allows('c/x', operation, false)]).toEqual([operation, allowed]);
  });

  it('lets root do anything, sudo included', () => {
    const root = new Acl([], true);
    expect(root.allows('anything/at/all', 'delete', true)).toBe(true);
  });
});
