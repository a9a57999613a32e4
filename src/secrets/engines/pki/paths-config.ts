import { badRequest, notFound } from '../../../core/errors.js';
import { parseDurationSeconds } from '../../../core/duration.js';
import type { HandlerRequest, LogicalResponse, PathSpec } from '../../framework/types.js';
import { importBundle } from './authority.js';
import type { PkiEngine } from './engine.js';
import { rotateCrls } from './revocation.js';
import { pkiStore, type CrlConfig, type UrlConfig } from './storage.js';

const URL_FIELDS = ['issuing_certificates', 'crl_distribution_points', 'ocsp_servers'] as const;
const URL_LABELS: Record<(typeof URL_FIELDS)[number], string> = {
  issuing_certificates: 'issuing certificates',
  crl_distribution_points: 'CRL distribution points',
  ocsp_servers: 'OCSP servers',
};

const readUrls = (request: HandlerRequest): LogicalResponse => {
  const urls = pkiStore(request).urls();
  if (!urls) throw notFound();
  return { data: { ...urls } };
};

const writeUrls = (request: HandlerRequest) => {
  const current: UrlConfig = pkiStore(request).urls() ?? { issuing_certificates: [], crl_distribution_points: [], ocsp_servers: [] };
  for (const name of URL_FIELDS) {
    if (!request.fields.has(name)) continue;
    const values = request.fields.get<string[]>(name);
    const bad = values.find((value) => !/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(value) || !URL.canParse(value));
    if (bad !== undefined) throw badRequest(`invalid URL found in ${URL_LABELS[name]}: ${bad}`);
    current[name] = values;
  }
  request.storage.put('config/urls', current);
  return undefined;
};

const readCrlConfig = (request: HandlerRequest): LogicalResponse => {
  const config = pkiStore(request).crlConfig();
  if (!config) throw notFound();
  return { data: { ...config } };
};

/** `config/issuers` (and `root/replace`): the default issuer, and whether it follows new issuers. */
const readIssuersConfig = (request: HandlerRequest): LogicalResponse => {
  const config = pkiStore(request).issuersConfig();
  return { data: { default: config.default, default_follows_latest_issuer: config.default_follows_latest_issuer } };
};

/** Mount settings: URLs in certificates, CRLs, the CA upload, and the default issuer and key. */
export function configPaths(engine: PkiEngine): PathSpec[] {
  const writeCrlConfig = async (request: HandlerRequest) => {
    const store = pkiStore(request);
    const current: CrlConfig = store.crlConfig() ?? { expiry: '72h', disable: false };
    if (request.fields.has('expiry')) {
      const expiry = request.fields.get<string>('expiry');
      try {
        if (parseDurationSeconds(expiry) <= 0) throw new Error('not positive');
      } catch {
        throw badRequest(`given expiry could not be decoded: ${expiry}`);
      }
      current.expiry = expiry;
    }
    if (request.fields.has('disable')) current.disable = request.fields.get<boolean>('disable');
    request.storage.put('config/crl', current);
    // The CRLs follow their configuration at once.
    await rotateCrls(engine, store, request.mount.uuid);
    return undefined;
  };

  const uploadCa = (request: HandlerRequest) =>
    engine.exclusive(request.mount.uuid, async (): Promise<LogicalResponse> => {
      const text = request.fields.get<string>('pem_bundle');
      if (text.trim() === '') throw badRequest("'pem_bundle' was empty");
      return { data: { ...(await importBundle(engine, request, text, true)) } };
    });

  const importIssuers = (request: HandlerRequest) =>
    engine.exclusive(request.mount.uuid, async (): Promise<LogicalResponse> => {
      const text = request.fields.get<string>('pem_bundle');
      if (text.trim() === '') throw badRequest("'pem_bundle' and 'certificate' parameters were empty");
      return { data: { ...(await importBundle(engine, request, text, request.path.startsWith('issuers/import/bundle'))) } };
    });

  const writeIssuersConfig = (request: HandlerRequest): LogicalResponse => {
    const store = pkiStore(request);
    const config = store.issuersConfig();
    const ref = request.fields.has('default') ? request.fields.get<string>('default') : request.fields.get<string>('default_ref');
    if (request.fields.has('default') || request.fields.has('default_ref')) {
      if (ref.trim() === '') throw badRequest('Invalid issuer specification; must be non-empty and can\'t be "default".');
      if (ref.trim().toLowerCase() !== 'default') config.default = store.resolveIssuer(ref).id;
    }
    if (request.fields.has('default_follows_latest_issuer'))
      config.default_follows_latest_issuer = request.fields.get<boolean>('default_follows_latest_issuer');
    store.putIssuersConfig(config);
    const issuer = store.issuer(config.default);
    const warnings =
      issuer && issuer.key_id === ''
        ? [
            'This selected default issuer has no key associated with it. Some operations like issuing certificates and ' +
              'signing CRLs will be unavailable with the requested default issuer until a key is imported or the default ' +
              'issuer is changed.',
          ]
        : [];
    return { ...readIssuersConfig(request), ...(warnings.length > 0 ? { warnings } : {}) };
  };

  const writeKeysConfig = (request: HandlerRequest): LogicalResponse => {
    const store = pkiStore(request);
    const ref = request.fields.get<string>('default');
    if (ref.trim() === '' || ref.trim().toLowerCase() === 'default')
      throw badRequest('Invalid key specification; must be non-empty and can\'t be "default".');
    store.putKeysConfig({ default: store.resolveKey(ref).id });
    return { data: { default: store.keysConfig().default } };
  };

  return [
    {
      pattern: 'config/urls',
      summary: 'URLs written into issued certificates (AIA and CRL distribution points).',
      fields: Object.fromEntries(
        URL_FIELDS.map((name) => [name, { type: 'commaStringSlice', default: [], description: URL_LABELS[name] }]),
      ),
      operations: { read: readUrls, update: writeUrls },
    },
    {
      pattern: 'config/crl',
      summary: 'CRL validity and whether revocations are listed.',
      fields: {
        expiry: { type: 'string', default: '72h', description: 'how long each CRL is valid' },
        disable: { type: 'bool', default: false, description: 'publish empty CRLs' },
      },
      operations: { read: readCrlConfig, update: writeCrlConfig },
    },
    {
      pattern: 'config/ca',
      summary: 'Import keys and CA certificates from one PEM bundle.',
      fields: { pem_bundle: { type: 'string', default: '', description: 'PEM keys and certificates' } },
      operations: { update: uploadCa },
    },
    ...['issuers/import/bundle', 'issuers/import/cert'].map((pattern): PathSpec => ({
      pattern,
      summary: 'Import CA certificates (and, for bundle, keys) as issuers.',
      fields: {
        pem_bundle: { type: 'string', default: '', description: 'PEM certificates (and keys)' },
      },
      operations: { update: importIssuers },
    })),
    ...['config/issuers', 'root/replace'].map((pattern): PathSpec => ({
      pattern,
      summary: 'The default issuer, and whether new issuers become it.',
      fields: {
        default: { type: 'string', default: '', description: 'the default issuer: an id or name' },
        default_ref: { type: 'string', default: 'next', description: 'root/replace: the issuer that becomes the default' },
        default_follows_latest_issuer: { type: 'bool', default: false, description: 'new issuers become the default' },
      },
      operations: {
        // root/replace only writes, as upstream.
        ...(pattern === 'config/issuers' ? { read: readIssuersConfig } : {}),
        update: (request) => {
          // root/replace names the new default by default_ref, `next` unless told otherwise.
          if (request.path.startsWith('root/replace') && !request.fields.has('default')) {
            const ref = request.fields.get<string>('default_ref');
            const store = pkiStore(request);
            const config = store.issuersConfig();
            store.putIssuersConfig({ ...config, default: store.resolveIssuer(ref).id });
            return readIssuersConfig(request);
          }
          return writeIssuersConfig(request);
        },
      },
    })),
    {
      pattern: 'config/keys',
      summary: 'The default key.',
      fields: { default: { type: 'string', default: '', description: 'the default key: an id or name' } },
      operations: { read: (request) => ({ data: { default: pkiStore(request).keysConfig().default } }), update: writeKeysConfig },
    },
  ];
}
