import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../src/app.js';
import { testConfig } from '../helpers/app.js';

// Every URL form that carries a credential in its path or query, plain and percent-encoded (the
// router decodes before matching, so an encoded spelling reaches the same route): the log keeps
// none of the secrets, under any spelling.

const SECRET = 'Sekrit0marker9';
/** The secret with its first letter percent-encoded, as a client may send it. */
const ENCODED = `%53${SECRET.slice(1)}`;

const FORMS: [method: string, path: string][] = [
  ['PUT', `/_archivist/v1/object/upload/sv-1.state.${SECRET}`],
  ['PUT', `/_archivist/v1/%6fbject/upload/sv-1.state.${SECRET}`],
  ['PUT', `/_archivist/v1/object/upload/${ENCODED}`],
  ['GET', `/_archivist/v1/object/download/sv-1~state.1.${SECRET}`],
  ['GET', `/_archivist/%761/object/download/sv-1~state.1.${SECRET}`],
  ['PUT', `/api/registry/uploads/v1/object/${SECRET}`],
  ['PUT', `/api/registry/uploads/v1/%6Fbject/${SECRET}`],
  ['PUT', `/api/registry/uploads/v1/object/${ENCODED}`],
  ['GET', `/api/registry/archives/v.1.${SECRET}/m-aws-1.0.0.tar.gz`],
  ['GET', `/api/registry/%61rchives/v.1.${SECRET}/m-aws-1.0.0.tar.gz`],
  ['POST', `/api/registry/webhooks/mod-1/${SECRET}`],
  ['POST', `/api/registry/%77ebhooks/mod-1/${SECRET}`],
  ['POST', `/api/registry/webhooks/mod-1/${ENCODED}`],
  // Not routed (an extra segment): still redacted by the link's decoded prefix.
  ['PUT', `/api/registry/uploads/v1/object/${SECRET}/extra`],
  ['GET', `/_archivist/v1/%6fbject/download/${SECRET}/extra`],
  // Doubled slashes: found by the link's shape, whatever route (if any) the spelling reaches.
  ['PUT', `//_archivist/v1/object/upload/sv-1.state.${SECRET}`],
  ['GET', `/_archivist//v1/object/download/sv-1~state.1.${SECRET}`],
  ['PUT', `/api//registry/uploads/v1/object/${SECRET}`],
  ['PUT', `/api/registry/uploads/v1//object/${SECRET}`],
  ['GET', `/api//registry/archives/v.1.${SECRET}/m-aws-1.0.0.tar.gz`],
  ['PUT', `/api/registry/uploads/v1/object//${SECRET}`],
  // Query parameters named like secrets, on every tree.
  ['GET', `/v1/sys/health?token=${SECRET}`],
  ['GET', `/api/v2/ping?access%5Ftoken=${SECRET}`],
  ['GET', `/_emulator/health?password=${SECRET}`],
];

describe('log and journal redaction over every secret-bearing URL form', () => {
  const lines: string[] = [];
  let app: App;
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    app = await buildApp(testConfig({ UNDERSTUDY_LOG_LEVEL: 'info' }), { logTo: stream });
  });
  afterAll(() => app.fastify.close());

  it.each(FORMS)('%s %s is logged without its secret', async (method, url) => {
    lines.length = 0;
    await app.fastify.inject({ method: 'DELETE', url: '/_emulator/requests' });
    const response = await app.fastify.inject({ method: method as 'GET', url, payload: method === 'GET' ? undefined : 'x' });
    expect(response.statusCode).toBeLessThan(500);
    const log = lines.join('');
    expect(log).toContain('incoming request');
    expect(log).toContain('[redacted]');
    for (const spelling of [SECRET, ENCODED, SECRET.slice(1)]) expect(log).not.toContain(spelling);
    const journal = await app.fastify.inject({ method: 'GET', url: '/_emulator/requests' });
    expect(journal.statusCode).toBe(200);
    for (const spelling of [SECRET, ENCODED, SECRET.slice(1)]) expect(journal.body, journal.body).not.toContain(spelling);
  });
});
