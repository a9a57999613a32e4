import { describe, expect, it } from 'vitest';
import { SQL_PLUGINS } from '../../../src/adapters/sql/registry.js';
import { formatExpiration, generateUsername, roleAllowed } from '../../../src/secrets/engines/database/credentials.js';
import { DEFAULT_PASSWORD_POLICY, generatePassword, parsePasswordPolicy } from '../../../src/secrets/passwords/policy.js';

const shape = (name: string) => SQL_PLUGINS.get(name)!.username;
const NOW = Date.UTC(2026, 10, 23, 9, 30, 5);

describe('database credentials', () => {
  it('builds usernames in each plugin’s default form and length', () => {
    const display = 'token-application';
    const role = 'reporting-readonly';
    const pg = generateUsername(shape('postgresql-database-plugin'), display, role, NOW);
    expect(pg).toMatch(/^v-token-ap-reportin-[0-9A-Za-z]{20}-1795426205$/);
    const my = generateUsername(shape('mysql-database-plugin'), display, role, NOW);
    expect(my).toHaveLength(32);
    expect(my.startsWith('v-token-appl-reporting--')).toBe(true);
    for (const legacy of ['mysql-legacy-database-plugin', 'mysql-rds-database-plugin', 'mysql-aurora-database-plugin']) {
      const name = generateUsername(shape(legacy), display, role, NOW);
      expect(name).toMatch(/^v-repo-[0-9A-Za-z]{9}$/);
    }
  });

  it('formats {{expiration}} as the real engine does', () => {
    expect(formatExpiration(new Date(NOW))).toBe('2026-11-23 09:30:05+0000');
  });

  it('matches allowed_roles by name, star and glob', () => {
    expect(roleAllowed(['*'], 'any')).toBe(true);
    expect(roleAllowed(['web', 'api-*'], 'api-7')).toBe(true);
    expect(roleAllowed(['web', 'api-*'], 'apix')).toBe(false);
    expect(roleAllowed(['a.b'], 'axb')).toBe(false);
    expect(roleAllowed([], 'web')).toBe(false);
  });

  it('meets every rule of a policy, the default one included', () => {
    for (let round = 0; round < 200; round++) {
      const password = generatePassword(DEFAULT_PASSWORD_POLICY);
      expect(password).toMatch(/^(?=.*[a-z])(?=.*[A-Z])(?=.*\d)(?=.*-)[A-Za-z0-9-]{20}$/);
    }
    const policy = parsePasswordPolicy('{"length": 10, "rule": {"charset": {"charset": "01", "min-chars": 10}}}');
    expect(generatePassword(policy)).toMatch(/^[01]{10}$/);
    const listed = parsePasswordPolicy(
      '{"length": 6, "rule": [{"charset": {"charset": "a", "min-chars": 3}}, {"charset": {"charset": "b", "min-chars": 3}}]}',
    );
    expect([...generatePassword(listed)].sort().join('')).toBe('aaabbb');
  });
});
