import { once } from 'node:events';
import { connect, createServer, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from '../../helpers/app.js';
import { v1 } from '../core/client.js';
import { generateRoot, hasOpenssl, mountPki, ok, openssl, requireOpenssl, scratch, x509Text } from './support.js';

/**
 * A CA hierarchy built only through the API (root mount → intermediate mount → leaves), checked
 * by OpenSSL: chains, extensions, CRLs and revocation; then a TLS handshake trusting only the root.
 */
describe.skipIf(!hasOpenssl && !process.env.CI)('PKI hierarchies verified by OpenSSL', () => {
  let server: TestServer;
  const files = scratch();
  beforeAll(async () => {
    requireOpenssl();
    server = await startServer();
  });
  afterAll(async () => {
    files.cleanup();
    await server.close();
  });

  async function hierarchy(kind: 'rsa' | 'ec') {
    const key = kind === 'rsa' ? { key_type: 'rsa', key_bits: 2048 } : { key_type: 'ec', key_bits: 384 };
    const root = `root-${kind}`;
    const int = `int-${kind}`;
    await mountPki(server, root);
    await mountPki(server, int);
    await ok(server, 'POST', `${root}/config/urls`, {
      issuing_certificates: `http://127.0.0.1:8200/v1/${root}/ca`,
      crl_distribution_points: [`http://127.0.0.1:8200/v1/${root}/crl`],
    });
    const rootCert = await generateRoot(server, root, {
      common_name: `Understudy ${kind} Root`,
      ...key,
      max_path_length: 2,
      permitted_dns_domains: 'example.com,.example.net',
    });
    const csr = (
      await ok(server, 'POST', `${int}/intermediate/generate/internal`, { common_name: `Understudy ${kind} Intermediate`, ...key })
    ).body.data.csr as string;
    const signed = (
      await ok(server, 'POST', `${root}/root/sign-intermediate`, { csr, common_name: `Understudy ${kind} Intermediate`, ttl: '4380h' })
    ).body.data;
    expect(signed.issuing_ca).toBe(rootCert.certificate);
    await ok(server, 'POST', `${int}/intermediate/set-signed`, { certificate: `${signed.certificate}\n${rootCert.certificate}` });
    await ok(server, 'POST', `${int}/config/urls`, {
      issuing_certificates: [`http://127.0.0.1:8200/v1/${int}/ca`],
      crl_distribution_points: `http://127.0.0.1:8200/v1/${int}/crl`,
      ocsp_servers: 'http://127.0.0.1:8200/ocsp',
    });
    await ok(server, 'POST', `${int}/roles/web`, {
      allowed_domains: 'example.com',
      allow_subdomains: true,
      ...(kind === 'ec' ? { key_type: 'ec', key_bits: 256 } : {}),
    });
    const leaf = (
      await ok(server, 'POST', `${int}/issue/web`, {
        common_name: 'www.example.com',
        alt_names: 'api.example.com',
        ip_sans: '127.0.0.1',
        ttl: '24h',
      })
    ).body.data;
    return { root, int, rootCert, intermediate: signed.certificate as string, leaf };
  }

  for (const kind of ['rsa', 'ec'] as const) {
    it(`verifies a ${kind.toUpperCase()} leaf through its intermediate to the root, with the extensions asked for, and revokes it`, async () => {
      const { root, int, rootCert, intermediate, leaf } = await hierarchy(kind);
      const rootFile = files.path(`${kind}-root.pem`, rootCert.certificate as string);
      const intFile = files.path(`${kind}-int.pem`, intermediate);
      const leafFile = files.path(`${kind}-leaf.pem`, leaf.certificate);
      expect(openssl(['verify', '-CAfile', rootFile, '-untrusted', intFile, leafFile]).output).toContain(': OK');
      expect(openssl(['verify', '-CAfile', rootFile, intFile]).output).toContain(': OK');
      // The issue response's chain is intermediate then root; the bare ca_chain endpoint agrees.
      expect(leaf.ca_chain).toEqual([intermediate, rootCert.certificate]);
      expect(leaf.issuing_ca).toBe(intermediate);
      const chain = await fetch(`${server.baseUrl}/v1/${int}/ca_chain`);
      expect(await chain.text()).toBe(`${intermediate}\n${rootCert.certificate}\n`);

      const rootText = x509Text(rootCert.certificate as string);
      expect(rootText).toMatch(/CA:TRUE, pathlen:2/);
      expect(rootText).toMatch(/Permitted:\s+DNS:example\.com\s+DNS:\.example\.net/);
      expect(rootText).toContain('Certificate Sign, CRL Sign');
      const intText = x509Text(intermediate);
      expect(intText).toMatch(/CA:TRUE, pathlen:1/);
      expect(intText).toContain(`CA Issuers - URI:http://127.0.0.1:8200/v1/${root}/ca`);
      expect(intText).toContain(`URI:http://127.0.0.1:8200/v1/${root}/crl`);
      const leafText = x509Text(leaf.certificate);
      expect(leafText).toMatch(/DNS:www\.example\.com, DNS:api\.example\.com, IP Address:127\.0\.0\.1/);
      expect(leafText).toContain('Digital Signature, Key Encipherment, Key Agreement');
      expect(leafText).toContain('TLS Web Server Authentication, TLS Web Client Authentication');
      expect(leafText).toContain('OCSP - URI:http://127.0.0.1:8200/ocsp');
      expect(leafText).toContain(`URI:http://127.0.0.1:8200/v1/${int}/crl`);
      expect(leafText).toContain(kind === 'rsa' ? 'Public-Key: (2048 bit)' : 'Public-Key: (256 bit)');

      // Revocation: the serial in colon form, hyphens accepted; the CRL lists it and OpenSSL refuses the leaf.
      const revoked = await ok(server, 'POST', `${int}/revoke`, {
        serial_number: (leaf.serial_number as string).replace(/:/g, '-').toUpperCase(),
      });
      expect(revoked.body.data.revocation_time).toBeGreaterThan(0);
      expect(revoked.body.data.revocation_time_rfc3339).toMatch(/^\d{4}-\d\d-\d\dT/);
      const crlPem = await (await fetch(`${server.baseUrl}/v1/${int}/crl/pem`)).text();
      const crlFile = files.path(`${kind}-int.crl`, crlPem);
      const crlText = openssl(['crl', '-in', crlFile, '-noout', '-text']).output;
      expect(crlText).toContain((leaf.serial_number as string).replace(/:/g, '').toUpperCase());
      expect(openssl(['crl', '-in', crlFile, '-noout', '-CAfile', intFile]).output).toContain('verify OK');
      const bundle = files.path(`${kind}-crls.pem`, `${crlPem}\n${await (await fetch(`${server.baseUrl}/v1/${root}/crl/pem`)).text()}`);
      const check = openssl(['verify', '-crl_check_all', '-CAfile', rootFile, '-untrusted', intFile, '-CRLfile', bundle, leafFile]);
      expect(check.status).not.toBe(0);
      expect(check.output).toContain('certificate revoked');
      // A leaf that was not revoked still passes the same CRL check.
      const fresh = (await ok(server, 'POST', `${int}/issue/web`, { common_name: 'ok.example.com', ttl: '1h' })).body.data
        .certificate as string;
      expect(
        openssl([
          'verify',
          '-crl_check_all',
          '-CAfile',
          rootFile,
          '-untrusted',
          intFile,
          '-CRLfile',
          bundle,
          files.path(`${kind}-fresh.pem`, fresh),
        ]).output,
      ).toContain(': OK');
      // JSON read of the revoked certificate shows the revocation.
      const read = await v1(server, 'GET', `${int}/cert/${leaf.serial_number}`, { token: null });
      expect(read.body.data).toMatchObject({ certificate: leaf.certificate, revocation_time: revoked.body.data.revocation_time });
    });
  }

  it('serves TLS with an issued certificate that a client trusting only the issued root accepts', async () => {
    await mountPki(server, 'tls');
    const root = await generateRoot(server, 'tls', { common_name: 'TLS Root', key_type: 'ec' });
    await ok(server, 'POST', 'tls/roles/server', { allow_localhost: true, allowed_domains: 'localhost', key_type: 'ec' });
    const issued = (
      await ok(server, 'POST', 'tls/issue/server', {
        common_name: 'localhost',
        ip_sans: '127.0.0.1',
        ttl: '1h',
        format: 'pem_bundle',
        private_key_format: 'pkcs8',
      })
    ).body.data;
    expect(issued.certificate).toMatch(/^-----BEGIN PRIVATE KEY-----[\s\S]+-----BEGIN CERTIFICATE-----/);
    const tls = createServer({ key: issued.private_key, cert: issued.certificate }, (socket) => socket.end('hello over tls'));
    tls.listen(0, '127.0.0.1');
    await once(tls, 'listening');
    const { port } = tls.address() as { port: number };
    try {
      const socket: TLSSocket = connect({ host: '127.0.0.1', port, servername: 'localhost', ca: [root.certificate as string] });
      let text = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      await once(socket, 'end');
      expect(socket.authorized).toBe(true);
      expect(text).toBe('hello over tls');
      // Without the issued root as trust anchor the same server is refused.
      const untrusted = connect({ host: '127.0.0.1', port, servername: 'localhost' });
      const [error] = (await once(untrusted, 'error')) as [NodeJS.ErrnoException];
      expect(error.code).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED|UNABLE_TO_GET_ISSUER/);
    } finally {
      tls.close();
    }
  });
});
