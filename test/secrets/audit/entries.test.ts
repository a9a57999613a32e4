import { describe, expect, it } from 'vitest';
import { callerAuth, rememberedCallerAuth, type Hashers } from '../../../src/secrets/audit/entries.js';
import { hashedJson, hashStrings, identifiedHmac } from '../../../src/secrets/audit/hash.js';
import type { TokenEntry } from '../../../src/secrets/tokens/token-store.js';

const hmac = (value: string) => identifiedHmac('salt', value);
const hash: Hashers = { token: hmac, accessor: hmac, data: (value) => hashedJson(value, hmac) };

describe('audit record text', () => {
  it('writes hashed data exactly as JSON.stringify writes the hashed copy', () => {
    const values: unknown[] = [
      {},
      { a: 'x', n: 1, f: 1.5, zero: 0, nan: Number.NaN, no: false, yes: true, none: null, gone: undefined, '10': 'numeric key' },
      { list: ['s', 2, null, undefined, { q: 'w' }, []], deep: { token: 's.abc', inner: { x: 'y' } }, when: new Date(5), empty: {} },
      Object.assign(Object.create(null) as object, { bare: 'x' }),
      { buffer: Buffer.from('hi'), map: new Map([[1, 2]]), custom: { toJSON: () => 'J' } },
      ['top', 'level'],
      'plain',
    ];
    for (const value of values) expect(hashedJson(value, hmac)).toBe(JSON.stringify(hashStrings(value, hmac)));
  });

  it('never serves a remembered caller whose token changed', () => {
    const token: TokenEntry = {
      id: 'stored-key',
      secret: 's.one',
      accessor: 'accessor',
      parentId: null,
      path: 'auth/token/create',
      displayName: 'token',
      policies: ['root'],
      meta: { app: 'a' },
      numUses: 0,
      orphan: false,
      renewable: true,
      ttlSeconds: 0,
      explicitMaxTtlSeconds: 0,
      createdAt: new Date(1_700_000_000_000),
      expiresAt: null,
      lastRenewalAt: null,
      periodSeconds: 0,
      maxTtlSeconds: 0,
      boundCidrs: null,
    };
    const remembered = rememberedCallerAuth(hash);
    expect(remembered(token)).toBe(callerAuth(token, hash));
    const changes: Partial<TokenEntry>[] = [
      { numUses: 4 },
      { numUses: 3 },
      { ttlSeconds: 60 },
      { meta: { app: 'b' } },
      { meta: { other: 'a' } },
      { meta: null },
      { policies: ['default'] },
      { displayName: 'renamed' },
      { createdAt: new Date(1) },
      { secret: 's.two' },
      { accessor: 'another' },
    ];
    for (const change of changes) {
      const changed = { ...token, ...change };
      expect(remembered(changed)).toBe(callerAuth(changed, hash));
    }
    expect(remembered(null)).toBe('{"token_type":"default"}');
  });
});
