import { badRequest, notFound } from '../../../core/errors.js';
import { parseDurationSeconds } from '../../../core/duration.js';
import type { PathSpec } from '../../framework/types.js';
import type { CrlConfig, UrlConfig } from './ca-store.js';
import type { PkiEngine } from './engine.js';
import type { KeyType } from './keys.js';
import { rotateCrl } from './revocation.js';
import { ROLE_FIELDS, roleFromFields, withDefaults, type Role } from './role.js';

export function readRole(storage: { get<T>(key: string): T | undefined }, name: string): Role | undefined {
  const stored = storage.get<Partial<Role>>(`roles/${name}`);
  return stored ? withDefaults(stored) : undefined;
}

const URL_FIELDS = ['issuing_certificates', 'crl_distribution_points', 'ocsp_servers'] as const;
const URL_LABELS: Record<(typeof URL_FIELDS)[number], string> = {
  issuing_certificates: 'issuing certificates',
  crl_distribution_points: 'CRL distribution points',
  ocsp_servers: 'OCSP servers',
};

/** Roles, URLs embedded in certificates, and CRL settings. */
export function configPaths(engine: PkiEngine): PathSpec[] {
  return [
    {
      pattern: 'roles',
      summary: 'List roles.',
      operations: {
        list: (request) => {
          const keys = request.storage.list('roles/');
          if (keys.length === 0) throw notFound();
          return { data: { keys } };
        },
      },
    },
    {
      pattern: 'roles/:name',
      summary: 'Create, read, update and delete roles.',
      fields: { name: { type: 'string', description: 'role name', required: true }, ...ROLE_FIELDS },
      existenceCheck: (request) => request.storage.get(`roles/${request.params.name}`) !== undefined,
      operations: {
        read: (request) => {
          const role = readRole(request.storage, request.params.name as string);
          if (!role) throw notFound();
          return { data: { ...role } };
        },
        update: (request) => {
          const { role, warnings } = roleFromFields(request.fields);
          request.storage.put(`roles/${request.params.name}`, role);
          // A role naming a key type is the moment to start pre-generating its keys.
          if (role.key_type !== 'any') engine.keys.warm({ type: role.key_type as KeyType, bits: role.key_bits });
          return warnings.length > 0 ? { data: null, warnings } : undefined;
        },
        delete: (request) => {
          request.storage.delete(`roles/${request.params.name}`);
          return undefined;
        },
      },
    },
    {
      pattern: 'config/urls',
      summary: 'URLs written into issued certificates (AIA and CRL distribution points).',
      fields: Object.fromEntries(
        URL_FIELDS.map((name) => [name, { type: 'commaStringSlice', default: [], description: URL_LABELS[name] }]),
      ),
      operations: {
        read: (request) => {
          const urls = request.storage.get<UrlConfig>('config/urls');
          if (!urls) throw notFound();
          return { data: { ...urls } };
        },
        update: (request) => {
          const current = request.storage.get<UrlConfig>('config/urls') ?? {
            issuing_certificates: [],
            crl_distribution_points: [],
            ocsp_servers: [],
          };
          for (const name of URL_FIELDS) {
            if (!request.fields.has(name)) continue;
            const values = request.fields.get<string[]>(name);
            const bad = values.find((value) => !/^[a-z][a-z0-9+.-]*:\/\/\S+$/i.test(value) || !URL.canParse(value));
            if (bad !== undefined) throw badRequest(`invalid URL found in ${URL_LABELS[name]}: ${bad}`);
            current[name] = values;
          }
          request.storage.put('config/urls', current);
          return undefined;
        },
      },
    },
    {
      pattern: 'config/crl',
      summary: 'CRL validity and whether revocations are listed.',
      fields: {
        expiry: { type: 'string', default: '72h', description: 'how long each CRL is valid' },
        disable: { type: 'bool', default: false, description: 'publish empty CRLs' },
      },
      operations: {
        read: (request) => {
          const config = request.storage.get<CrlConfig>('config/crl');
          if (!config) throw notFound();
          return { data: { ...config } };
        },
        update: async (request) => {
          const current = request.storage.get<CrlConfig>('config/crl') ?? { expiry: '72h', disable: false };
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
          // The CRL follows its configuration at once (no CA yet: nothing to rebuild).
          if (request.storage.get('config/ca_bundle')) await rotateCrl(engine, request);
          return undefined;
        },
      },
    },
  ];
}
