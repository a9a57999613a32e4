import { describe, expect, it } from 'vitest';
import { capabilityNames, parsePolicy, PolicyParseError } from '../../../src/secrets/acl/policy.js';

const rule = (raw: string, index = 0) => {
  const parsed = parsePolicy(raw).rules[index];
  if (!parsed) throw new Error('no rule');
  return { ...parsed, names: capabilityNames(parsed.capabilities) };
};

const parseError = (raw: string): string => {
  try {
    parsePolicy(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(PolicyParseError);
    return (error as Error).message;
  }
  throw new Error('expected a parse error');
};

describe('the HCL policy parser', () => {
  it('reads a path block with capabilities', () => {
    expect(rule('path "secret/data" { capabilities = ["read", "list"] }')).toMatchObject({
      path: 'secret/data',
      isPrefix: false,
      hasSegmentWildcards: false,
      names: ['read', 'list'],
    });
  });

  it('reads wrapping TTLs as seconds or durations, and refuses bad ones with the real texts', () => {
    expect(rule('path "x" {\n  capabilities = ["read"]\n  min_wrapping_ttl = 30\n  max_wrapping_ttl = "1h"\n}')).toMatchObject({
      minWrappingTtl: 30,
      maxWrappingTtl: 3600,
    });
    expect(rule('path "x" { capabilities = ["read"] }')).toMatchObject({ minWrappingTtl: 0, maxWrappingTtl: 0 });
    expect(parseError('path "x" {\n  capabilities = ["read"]\n  min_wrapping_ttl = "soon"\n}')).toBe(
      'failed to parse policy: error parsing min_wrapping_ttl: time: invalid duration "soon"',
    );
    expect(parseError('path "x" {\n  capabilities = ["read"]\n  min_wrapping_ttl = 400\n  max_wrapping_ttl = 200\n}')).toBe(
      'failed to parse policy: max_wrapping_ttl cannot be less than min_wrapping_ttl',
    );
  });

  it('reads several blocks, comments of all three kinds, a name, and trailing commas', () => {
    const parsed = parsePolicy(`
      # a hash comment
      name = "ops"
      // a slash comment
      path "a/*" {
        capabilities = ["create", "update",] /* inline block comment */
      }
      /* a block comment
         over two lines */
      path "b/+/c" { capabilities = ["delete"] }
    `);
    expect(parsed.rules.map((r) => [r.path, r.isPrefix, r.hasSegmentWildcards, capabilityNames(r.capabilities)])).toEqual([
      ['a/', true, false, ['create', 'update']],
      ['b/+/c', false, true, ['delete']],
    ]);
  });

  it('expands the legacy policy words', () => {
    expect(rule('path "x" { policy = "read" }').names).toEqual(['read', 'list']);
    expect(rule('path "x" { policy = "write" }').names).toEqual(['create', 'read', 'update', 'delete', 'list']);
    expect(rule('path "x" { policy = "sudo" }').names).toEqual(['create', 'read', 'update', 'delete', 'list', 'sudo']);
    expect(rule('path "x" { policy = "deny" }').names).toEqual(['deny']);
    expect(rule('path "x" { policy = "read"\n capabilities = ["update"] }').names).toEqual(['read', 'update', 'list']);
  });

  it('lets deny remove every other capability on the path', () => {
    expect(rule('path "x" { capabilities = ["read", "deny", "update"] }').names).toEqual(['deny']);
  });

  it('accepts patch and the parameter constraints (not enforced)', () => {
    const parsed = rule(`path "x/*" {
      capabilities = ["patch", "sudo"]
      allowed_parameters = { "ttl" = [] "common_name" = ["a", "b"] }
      denied_parameters = { "*" = [] }
      required_parameters = ["ttl"]
      min_wrapping_ttl = "1s"
      max_wrapping_ttl = 90
    }`);
    expect(parsed.names).toEqual(['sudo', 'patch']);
  });

  it('strips a leading slash and keeps * inside + patterns', () => {
    expect(rule('path "/secret/x" { capabilities = ["read"] }').path).toBe('secret/x');
    expect(rule('path "a/+/b*" { capabilities = ["read"] }')).toMatchObject({ path: 'a/+/b*', isPrefix: false, hasSegmentWildcards: true });
    expect(rule('path "+" { capabilities = ["read"] }').hasSegmentWildcards).toBe(true);
  });

  it('reads the JSON form, as an object or a list of objects', () => {
    expect(parsePolicy('{"path": {"a/*": {"capabilities": ["read"]}, "b": {"policy": "write"}}}').rules.map((r) => r.path)).toEqual([
      'a/',
      'b',
    ]);
    expect(parsePolicy('{"path": [{"c": {"capabilities": ["list"]}}]}').rules[0]?.path).toBe('c');
  });

  it('reports a capability it does not know with the real message', () => {
    expect(parseError('path "secret/foo" { capabilities = ["read", "frobnicate"] }')).toBe(
      'failed to parse policy: path "secret/foo": invalid capability "frobnicate"',
    );
  });

  it('reports a legacy policy word it does not know', () => {
    expect(parseError('path "x" { policy = "admin" }')).toBe('failed to parse policy: path "x": invalid policy "admin"');
  });

  it('reports unknown keys as the multierror the real service produces', () => {
    expect(parseError('path "x" {\n  capabilities = ["read"]\n  color = "red"\n}')).toBe(
      'failed to parse policy: 1 error occurred:\n\t* path "x": invalid key "color" on line 3\n\n',
    );
    expect(parseError('paths "x" { capabilities = ["read"] }\nfoo = 1')).toBe(
      'failed to parse policy: 2 errors occurred:\n\t* invalid key "paths" on line 1\n\t* invalid key "foo" on line 2\n\n',
    );
  });

  it('refuses +* in a path', () => {
    expect(parseError('path "a/+*" { capabilities = ["read"] }')).toBe(
      `failed to parse policy: path "a/+*": invalid use of wildcards ('+*' is forbidden)`,
    );
  });

  it('positions syntax errors as line:column', () => {
    expect(parseError('path "x" {\n  capabilities = ["read"\n')).toMatch(/^failed to parse policy: At 3:1: /);
    expect(parseError('path "x" { capabilities = ["read"] } @')).toMatch(/^failed to parse policy: At 1:38: illegal char$/);
    expect(parseError('path "x {}')).toMatch(/^failed to parse policy: At 1:6: literal not terminated$/);
    expect(parseError('/* never closed')).toMatch(/comment not terminated/);
    expect(parseError('{"path": ')).toMatch(/^failed to parse policy: At 1:1: /);
  });

  it('accepts an empty policy (no rules)', () => {
    expect(parsePolicy('# nothing here\n').rules).toEqual([]);
  });
});
