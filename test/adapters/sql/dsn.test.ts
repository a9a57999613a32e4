import { describe, expect, it } from 'vitest';
import { parseMysqlDsn } from '../../../src/adapters/sql/mysql.js';
import { connectionUrlOf, renderStatements } from '../../../src/adapters/sql/plugin.js';

describe('connection strings and statements', () => {
  it("reads the Go driver's DSN the real mysql plugin takes", () => {
    expect(parseMysqlDsn('admin:s3cret@tcp(db.internal:3307)/app?tls=false')).toEqual({
      user: 'admin',
      password: 's3cret',
      database: 'app',
      host: 'db.internal',
      port: 3307,
    });
    expect(parseMysqlDsn('admin@tcp(127.0.0.1)/')).toEqual({
      user: 'admin',
      password: '',
      database: undefined,
      host: '127.0.0.1',
      port: 3306,
    });
    expect(parseMysqlDsn('root:pw@unix(/run/mysqld/mysqld.sock)/')).toEqual({
      user: 'root',
      password: 'pw',
      database: undefined,
      socketPath: '/run/mysqld/mysqld.sock',
    });
    expect(parseMysqlDsn('mysql://a%40b:p%2Fw@127.0.0.1:3306/app')).toMatchObject({
      user: 'a@b',
      password: 'p/w',
      host: '127.0.0.1',
      port: 3306,
      database: 'app',
    });
    expect(() => parseMysqlDsn('admin:pw@tcp(127.0.0.1:3306')).toThrow(/missing the slash/);
    expect(() => parseMysqlDsn('admin:pw@tcp(127.0.0.1:3306/')).toThrow(/not terminated/);
    expect(() => parseMysqlDsn('admin:pw@tcp(127.0.0.1:abc)/')).toThrow('dial tcp: lookup tcp/abc: unknown port');
    expect(() => parseMysqlDsn('admin:pw@tcp(127.0.0.1:-1)/')).toThrow('dial tcp: lookup tcp/-1: unknown port');
    expect(() => parseMysqlDsn('admin:pw@tcp(127.0.0.1:65536)/')).toThrow('dial tcp: address 65536: invalid port');
  });

  it('escapes credentials into a templated URL unless escaping is disabled', () => {
    const settings = {
      connectionUrl: 'postgresql://{{username}}:{{password}}@h/db',
      username: 'a@b',
      password: 'p/w:?',
      disableEscaping: false,
      maxOpenConnections: 4,
    };
    expect(connectionUrlOf(settings)).toBe('postgresql://a%40b:p%2Fw%3A%3F@h/db');
    expect(connectionUrlOf({ ...settings, disableEscaping: true })).toBe('postgresql://a@b:p/w:?@h/db');
  });

  it('fills {{name}}, {{username}}, {{password}}, {{expiration}} and splits at semicolons', () => {
    const queries = renderStatements(
      [
        `CREATE ROLE "{{name}}" PASSWORD '{{password}}' VALID UNTIL '{{expiration}}'; GRANT r TO "{{username}}";`,
        '  ',
        'SELECT {{unknown}}',
      ],
      'v-x',
      { password: 'pw', expiration: '2030-01-01 00:00:00+0000' },
    );
    expect(queries).toEqual([
      `CREATE ROLE "v-x" PASSWORD 'pw' VALID UNTIL '2030-01-01 00:00:00+0000'`,
      'GRANT r TO "v-x"',
      'SELECT {{unknown}}',
    ]);
  });
});
