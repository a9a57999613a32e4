import { badRequest } from '../../core/errors.js';
import type { SecretsContext } from '../context.js';
import type { FieldSpec, HandlerRequest, PathSpec } from '../framework/types.js';

const ENABLE_FIELDS: Record<string, FieldSpec> = {
  path: { type: 'string', description: 'Where the device is enabled (in the URL), e.g. `file`.' },
  type: { type: 'string', description: 'Device type; `file` is the one understudy has.' },
  description: { type: 'string', description: 'Free text shown by the listing.', default: '' },
  options: {
    type: 'kvPairs',
    description: '`file_path` (a path, `stdout` or `discard`), `log_raw`, `hmac_accessor`, `format` (json), `prefix`, `mode`.',
    default: {},
  },
  local: { type: 'bool', description: 'Accepted for compatibility (there is no replication).', default: false },
};

const HASH_FIELDS: Record<string, FieldSpec> = {
  path: { type: 'string', description: 'The device whose salt is used (in the URL).' },
  input: { type: 'string', description: 'The value to hash.', default: '' },
};

/** `sys/audit` (list), `sys/audit/:path` (enable, disable) and `sys/audit-hash/:path`; the first two need sudo. */
export function auditPaths(context: SecretsContext): PathSpec[] {
  const { audit } = context;
  const pathOf = (request: HandlerRequest) => request.params['path'] ?? '';

  return [
    {
      pattern: 'audit',
      summary: 'Enabled audit devices, keyed by path (also at the top level, as the real service answers).',
      sudo: true,
      operations: {
        read: () => ({
          data: Object.fromEntries(
            audit.table
              .all()
              .map((device) => [
                device.path,
                { path: device.path, type: device.type, description: device.description, options: device.options, local: device.local },
              ]),
          ),
          dataAtTopLevel: true,
        }),
      },
    },
    {
      pattern: 'audit/:path*',
      summary: 'Enable (PUT/POST) or disable (DELETE) an audit device.',
      fields: ENABLE_FIELDS,
      sudo: true,
      operations: {
        update: (request) => {
          const { fields } = request;
          audit.enable({
            path: pathOf(request),
            type: fields.get<string | undefined>('type') ?? '',
            description: fields.get<string>('description'),
            options: fields.get<Record<string, string>>('options'),
            local: fields.get<boolean>('local'),
          });
          return undefined;
        },
        delete: (request) => {
          audit.disable(pathOf(request));
          return undefined;
        },
      },
    },
    {
      pattern: 'audit-hash/:path*',
      summary: "The HMAC an audit device writes for `input`, with that device's salt.",
      fields: HASH_FIELDS,
      operations: {
        update: (request) => {
          const input = request.fields.get<string>('input');
          if (input === '') throw badRequest('the "input" parameter is empty');
          return { data: { hash: audit.hash(pathOf(request), input) }, dataAtTopLevel: true };
        },
      },
    },
  ];
}
