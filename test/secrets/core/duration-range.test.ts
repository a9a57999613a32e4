import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from './client.js';

/** Every TTL field is read by one reader with the real service's range: past it, a 400, never a later 500. */
describe('duration fields out of range', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
    expect((await v1(server, 'POST', 'sys/auth/approle', { body: { type: 'approle' } })).status).toBe(204);
  });
  afterAll(() => server.close());

  const conversion = (value: string, field: string) => [
    `Field validation failed: error converting input ${value} for field "${field}": expected a duration`,
  ];

  it('refuses a role secret_id_ttl past the range, and the role keeps working', async () => {
    // The body is sent as text so the number reaches the server as written.
    const refused = await v1(server, 'POST', 'auth/approle/role/r1', { body: '{"secret_id_ttl": 99999999999999999999}' });
    expect(refused).toMatchObject({ status: 400, body: { errors: conversion('100000000000000000000', 'secret_id_ttl') } });
    expect((await v1(server, 'POST', 'auth/approle/role/r1', { body: { secret_id_ttl: '1h' } })).status).toBe(204);
    expect((await v1(server, 'POST', 'auth/approle/role/r1/secret-id', { body: {} })).body.data.secret_id_ttl).toBe(3600);
  });

  it('refuses a custom secret ID ttl of 1e308', async () => {
    expect((await v1(server, 'POST', 'auth/approle/role/r2', { body: {} })).status).toBe(204);
    const refused = await v1(server, 'POST', 'auth/approle/role/r2/custom-secret-id', { body: '{"secret_id": "s-1", "ttl": 1e308}' });
    expect(refused).toMatchObject({ status: 400, body: { errors: conversion('1e+308', 'ttl') } });
    // Nothing was stored: the same secret ID can still be registered.
    expect((await v1(server, 'POST', 'auth/approle/role/r2/custom-secret-id', { body: { secret_id: 's-1' } })).status).toBe(200);
  });

  it('accepts the longest duration Go can hold and answers with it', async () => {
    expect((await v1(server, 'POST', 'auth/approle/role/r3', { body: { secret_id_ttl: 9223372036 } })).status).toBe(204);
    const issued = await v1(server, 'POST', 'auth/approle/role/r3/secret-id', { body: {} });
    expect(issued).toMatchObject({ status: 200, body: { data: { secret_id_ttl: 9223372036 } } });
    const tooLong = await v1(server, 'POST', 'auth/approle/role/r3', { body: { secret_id_ttl: 9223372037 } });
    expect(tooLong).toMatchObject({ status: 400, body: { errors: conversion('9223372037', 'secret_id_ttl') } });
  });

  it('uses the same reader for mount TTLs, token TTLs and a string past the range', async () => {
    const mount = await v1(server, 'POST', 'sys/mounts/kv-range', { body: { type: 'kv', config: { default_lease_ttl: '3000000h' } } });
    expect(mount).toMatchObject({ status: 400, body: { errors: conversion('"3000000h"', 'default_lease_ttl') } });
    const token = await v1(server, 'POST', 'auth/token/create', { body: { ttl: 1e300 } });
    expect(token).toMatchObject({ status: 400, body: { errors: conversion('1e+300', 'ttl') } });
  });
});
