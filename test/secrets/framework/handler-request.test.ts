import { describe, expect, it } from 'vitest';
import { FieldData } from '../../../src/secrets/framework/fields.js';
import { RoutedRequest, withFields, type RequestSource } from '../../../src/secrets/framework/handler-request.js';
import type { MountStorage } from '../../../src/secrets/storage/mount-storage.js';

/**
 * The request handlers see: its certificate and origin are read from the request it came from
 * only when a handler asks (building the origin reads headers and the socket; Node builds a whole
 * peer certificate object on each read), and a handler that reads it under other fields keeps them.
 */
function sourceCounting(): { source: RequestSource; reads: string[] } {
  const reads: string[] = [];
  const certificate = Buffer.from('certificate');
  const source: RequestSource = {
    get clientCertificate() {
      reads.push('certificate');
      return certificate;
    },
    get origin() {
      reads.push('origin');
      return 'https://127.0.0.1:8200';
    },
  };
  return { source, reads };
}

function routed(source: RequestSource): RoutedRequest {
  const data = { name: 'web', policies: 'a,b' };
  return new RoutedRequest(
    {
      operation: 'update',
      path: 'role/web',
      params: { name: 'web' },
      fields: new FieldData({ name: { type: 'string', description: 'The role.' } }, data, { name: 'web' }),
      data,
      token: null,
      clientAddress: '127.0.0.1',
      wrapTtl: 0,
      mount: { path: 'auth/jwt/', type: 'jwt', uuid: 'mount-uuid', accessor: 'auth_jwt_1', config: {} },
      storage: {} as MountStorage,
    },
    source,
  );
}

describe('a routed request', () => {
  it('reads the certificate and the origin from its source only when asked, each time asked', () => {
    const { source, reads } = sourceCounting();
    const request = routed(source);
    expect(request.path).toBe('role/web');
    expect(request.fields.get('name')).toBe('web');
    expect(reads).toEqual([]);
    expect(request.origin).toBe('https://127.0.0.1:8200');
    expect(request.clientCertificate?.toString()).toBe('certificate');
    expect(reads).toEqual(['origin', 'certificate']);
  });

  it('keeps its certificate, origin (still read when asked) and everything else under other fields and data', () => {
    const { source, reads } = sourceCounting();
    const request = routed(source);
    const data = { name: 'web', token_policies: 'a,b' };
    const fields = new FieldData({ token_policies: { type: 'commaStringSlice', description: 'Policies.' } }, data, request.params);
    const renamed = withFields(request, fields, data);
    expect(renamed.fields.get('token_policies')).toEqual(['a', 'b']);
    expect(renamed.data).toBe(data);
    // Still read from the request only when asked.
    expect(reads).toEqual([]);
    expect(renamed.origin).toBe('https://127.0.0.1:8200');
    expect(renamed.clientCertificate?.toString()).toBe('certificate');
    const { operation, path, params, token, clientAddress, wrapTtl, mount, storage } = renamed;
    expect({ operation, path, params, token, clientAddress, wrapTtl }).toEqual({
      operation: 'update',
      path: 'role/web',
      params: { name: 'web' },
      token: null,
      clientAddress: '127.0.0.1',
      wrapTtl: 0,
    });
    expect(mount).toBe(request.mount);
    expect(storage).toBe(request.storage);
    // Without data, the request's own stays.
    expect(withFields(request, fields).data).toBe(request.data);
  });
});
