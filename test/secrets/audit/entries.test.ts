import { describe, expect, it } from 'vitest';
import {
  callerAuth,
  mountMembers,
  rememberedCallerAuth,
  rememberedRequestMember,
  requestMember,
  type Hashers,
  type RequestFacts,
} from '../../../src/secrets/audit/entries.js';
import { hashedJson, hashStrings, identifiedHmac, rememberedJson } from '../../../src/secrets/audit/hash.js';
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

  it('writes the same text with strings remembered as JSON, twice over', () => {
    const json = rememberedJson();
    const values: unknown[] = [
      { 'a "quoted" key': 'x', 'back\\slash': ['\u2028', 'é', '\ud800'], 'line\nbreak': { tab: '\t' } },
      { list: ['s', 2, null, { q: 'w' }], when: new Date(5), long: 'y'.repeat(300) },
    ];
    for (const value of [...values, ...values]) expect(hashedJson(value, hmac, '', json)).toBe(JSON.stringify(hashStrings(value, hmac)));
    // Raw values (log_raw) go through as they are, quotes and control characters escaped.
    const raw = { 'k"': 'v"\u0001' };
    expect(hashedJson(raw, (text) => text, '', json)).toBe(JSON.stringify(raw));
    expect(hashedJson(raw, (text) => text, '', json)).toBe(JSON.stringify(raw));
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

  it('never serves a remembered request member whose parts changed', () => {
    const token = { accessor: 'accessor' } as TokenEntry;
    const mount = mountMembers({ path: 'secret/', type: 'kv', uuid: 'u', accessor: 'kv_1', config: {} });
    const facts: RequestFacts = {
      id: 'id-1',
      operation: 'read',
      path: 'secret/data/a',
      data: {},
      clientToken: 's.one',
      token,
      mount: undefined,
      remoteAddress: '127.0.0.1',
    };
    const remembered = rememberedRequestMember(hash);
    expect(remembered(facts, mount)).toBe(requestMember(facts, mount, hash));
    const changes: Partial<RequestFacts>[] = [
      { id: 'id-2' },
      { operation: 'list' },
      { path: 'secret/data/b' },
      { clientToken: 's.two' },
      { clientToken: undefined },
      { token: { accessor: 'another' } as TokenEntry },
      { token: null },
      { remoteAddress: '10.0.0.1' },
      { remoteAddress: undefined },
      { data: { key: 'value' } },
    ];
    for (const change of changes) {
      const changed = { ...facts, ...change };
      expect(remembered(changed, mount)).toBe(requestMember(changed, mount, hash));
      expect(remembered(changed, '')).toBe(requestMember(changed, '', hash));
      expect(remembered(facts, mount)).toBe(requestMember(facts, mount, hash));
    }
  });
});
