import { X509Certificate } from 'node:crypto';
import { badRequest, notFound } from '../../core/errors.js';
import type { EngineFactory, SecretsContext } from '../context.js';
import type { FieldSpec, HandlerRequest, LogicalResponse, PathSpec } from '../framework/types.js';
import { upstream500 } from '../framework/errors.js';
import type { MountStorage } from '../storage/mount-storage.js';
import { sanitizePolicies } from '../tokens/token-service.js';
import { glob, meetsRequiredExtensions } from './cert-extensions.js';
import { loginResponse } from './login.js';
import { DEFAULT_TOKEN_SETTINGS, parseTokenSettings, TOKEN_FIELDS, tokenSettingsWire, type TokenSettings } from './token-settings.js';
import { boundedMemo } from '../../core/bounded-memo.js';

/** A trusted certificate entry: PEM CA (or leaf) certificates and the constraints a login must meet. */
interface CertEntry {
  certificate: string;
  display_name: string;
  allowed_common_names: string[];
  allowed_dns_sans: string[];
  allowed_email_sans: string[];
  allowed_uri_sans: string[];
  allowed_organizational_units: string[];
  required_extensions: string[];
  settings: TokenSettings;
}

const LIST = (description: string): FieldSpec => ({ type: 'commaStringSlice', description, default: [] });
const CONSTRAINTS = [
  'allowed_common_names',
  'allowed_dns_sans',
  'allowed_email_sans',
  'allowed_uri_sans',
  'allowed_organizational_units',
  'required_extensions',
] as const;

const CERT_FIELDS: Record<string, FieldSpec> = {
  name: { type: 'string', description: 'Name of the trusted certificate entry.' },
  certificate: { type: 'string', description: 'PEM CA certificates (or a leaf) a client certificate must chain to.', default: '' },
  display_name: { type: 'string', description: 'Display name of tokens issued by this entry.', default: '' },
  allowed_common_names: LIST('Globs the subject common name must match.'),
  allowed_dns_sans: LIST('Globs a DNS SAN must match.'),
  allowed_email_sans: LIST('Globs an email SAN must match.'),
  allowed_uri_sans: LIST('Globs a URI SAN must match.'),
  allowed_organizational_units: LIST('Globs one of the subject organizational units must match.'),
  required_extensions: LIST('Extensions (`oid:value`, the value a glob) the certificate must carry.'),
  ...TOKEN_FIELDS,
};

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/**
 * Parsing a certificate costs Node (OpenSSL 3) a quarter to a whole millisecond and verifying its
 * signature another few hundred microseconds, most of a certificate login; every login of a
 * client presents the same certificate against the same entries. So parsed certificates (by PEM
 * text or DER bytes) and trust verdicts (by both certificates' bytes) are remembered, a bounded
 * number of each. All three are pure functions of those bytes: what depends on the time
 * (validity) or on the entry's constraints is still checked on every login.
 */
const MEMO_LIMIT = 256;
const memo = <T>(make: (key: string) => T) => boundedMemo(MEMO_LIMIT, make);

const parsedPem = memo((pem: string) => parseCertificatesNow(pem));
const parsedDer = memo((derBase64: string) => new X509Certificate(Buffer.from(derBase64, 'base64')));
/** Whether a PEM text's certificates issued (or are) a client certificate: keyed `<client DER base64>\n<PEM>`. */
const trustVerdicts = memo((key: string) => {
  const cut = key.indexOf('\n');
  const client = parsedDer(key.slice(0, cut));
  return parseCertificates(key.slice(cut + 1)).some(
    (trusted) => trusted.raw.equals(client.raw) || (client.checkIssued(trusted) && client.verify(trusted.publicKey)),
  );
});

/** The certificates of a PEM text (parsed once per text; errors are not remembered). */
function parseCertificates(pem: string): X509Certificate[] {
  return parsedPem(pem);
}

function parseCertificatesNow(pem: string): X509Certificate[] {
  const blocks = pem.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0) throw badRequest('failed to parse certificate');
  return blocks.map((block) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw badRequest('failed to parse certificate');
    }
  });
}

const anyMatch = (patterns: string[], values: string[]) =>
  patterns.length === 0 || values.some((value) => patterns.some((pattern) => glob(pattern, value)));

/** The subject's attribute values (`CN`, `OU`) as Node prints the subject, one per line. */
const subjectValues = (certificate: X509Certificate, attribute: string) =>
  certificate.subject
    .split('\n')
    .filter((line) => line.startsWith(`${attribute}=`))
    .map((line) => line.slice(attribute.length + 1));
const sans = (certificate: X509Certificate, kind: string) =>
  (certificate.subjectAltName ?? '')
    .split(', ')
    .filter((item) => item.startsWith(`${kind}:`))
    .map((item) => item.slice(kind.length + 1));

/** Every constraint of the entry, each a case-sensitive glob as for real; all must hold. */
function meetsConstraints(entry: CertEntry, client: X509Certificate): boolean {
  return (
    anyMatch(entry.allowed_common_names, subjectValues(client, 'CN')) &&
    anyMatch(entry.allowed_dns_sans, sans(client, 'DNS')) &&
    anyMatch(entry.allowed_email_sans, sans(client, 'email')) &&
    anyMatch(entry.allowed_uri_sans, sans(client, 'URI')) &&
    anyMatch(entry.allowed_organizational_units, subjectValues(client, 'OU')) &&
    meetsRequiredExtensions(entry.required_extensions, client.raw)
  );
}

/** Go's RFC 3339 time, as its certificate verifier prints it. */
const goTime = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/**
 * The real verifier checks the client certificate's validity before its chain; outside it, the
 * method answers with the verifier's text (a 500 there: `upstream500` keeps it for that dialect).
 */
function checkValidity(client: X509Certificate, now: number): void {
  const notBefore = Date.parse(client.validFrom);
  const notAfter = Date.parse(client.validTo);
  if (now >= notBefore && now <= notAfter) return;
  const detail = now > notAfter ? `is after ${goTime(notAfter)}` : `is before ${goTime(notBefore)}`;
  throw upstream500(
    badRequest(
      `failed to verify client's certificate: x509: certificate has expired or is not yet valid: current time ${goTime(now)} ${detail}`,
    ),
  );
}

/** Whether one of the entry's certificates issued (or is) the client certificate (remembered per pair: trustVerdicts). */
function trusts(entry: CertEntry, clientKey: string): boolean {
  return trustVerdicts(`${clientKey}\n${entry.certificate}`);
}

/** The entry a client certificate logs in with (`name` narrows the search), or the real error. */
function matchingEntry(context: SecretsContext, storage: MountStorage, der: Buffer | undefined, requested: string) {
  if (!der) throw badRequest('client certificate must be supplied');
  const clientKey = der.toString('base64');
  const client = parsedDer(clientKey);
  checkValidity(client, context.clock.nowMs());
  const names = requested !== '' ? [requested] : storage.list('cert/').filter((key) => !key.endsWith('/'));
  const entries = names.flatMap((name) => {
    const entry = storage.get<CertEntry>(`cert/${name}`);
    return entry ? [{ name, entry }] : [];
  });
  const trusted = entries.filter(({ entry }) => trusts(entry, clientKey));
  if (trusted.length === 0) throw badRequest('invalid certificate or no client certificate supplied');
  const matched = trusted.find(({ entry }) => meetsConstraints(entry, client));
  if (!matched) throw badRequest('no chain matching all constraints could be found for this login certificate');
  return { client, ...matched };
}

function login(context: SecretsContext, request: HandlerRequest): LogicalResponse {
  const { client, ...matched } = matchingEntry(context, request.storage, request.clientCertificate, request.fields.get<string>('name'));
  const commonName = subjectValues(client, 'CN')[0] ?? '';
  return loginResponse(context, request, {
    settings: matched.entry.settings,
    meta: {
      cert_name: matched.name,
      common_name: commonName,
      serial_number: BigInt(`0x${client.serialNumber}`).toString(),
      subject_key_id: '',
      authority_key_id: '',
    },
    displayName: matched.entry.display_name || matched.name,
    alias: { name: commonName, metadata: {} },
  });
}

function writeCert(request: HandlerRequest): undefined {
  const name = (request.params.name ?? '').toLowerCase();
  const current = request.storage.get<CertEntry>(`cert/${name}`);
  const pem = request.fields.has('certificate') ? request.fields.get<string>('certificate') : (current?.certificate ?? '');
  if (pem === '') throw badRequest('missing certificate');
  parseCertificates(pem);
  const entry: CertEntry = {
    certificate: pem,
    display_name: request.fields.has('display_name') ? request.fields.get<string>('display_name') : (current?.display_name ?? ''),
    allowed_common_names: [],
    allowed_dns_sans: [],
    allowed_email_sans: [],
    allowed_uri_sans: [],
    allowed_organizational_units: [],
    required_extensions: [],
    settings: parseTokenSettings(request, current?.settings ?? DEFAULT_TOKEN_SETTINGS),
  };
  for (const field of CONSTRAINTS)
    entry[field] = request.fields.has(field) ? request.fields.get<string[]>(field) : (current?.[field] ?? []);
  request.storage.put(`cert/${name}`, entry);
  return undefined;
}

/** The `cert` auth method: logins by the TLS client certificate against trusted CA entries. */
export const certMethod: EngineFactory = (context) => ({
  type: 'cert',
  renewLogin: (token, storage) => {
    const entry = storage.get<CertEntry>(`cert/${token.meta?.['cert_name'] ?? ''}`);
    if (!entry) throw badRequest('failed to match a certificate entry, not renewing');
    if (sanitizePolicies(entry.settings.policies, !entry.settings.noDefaultPolicy).join() !== token.policies.join())
      throw badRequest('policies have changed, not renewing');
    return entry.settings;
  },
  paths: certPaths(context),
  // The entry the certificate would log in with, for role-based quotas.
  resolveRole: ({ data, storage, clientCertificate }) => {
    try {
      const name = typeof data['name'] === 'string' ? data['name'] : '';
      return matchingEntry(context, storage, clientCertificate, name).name;
    } catch {
      return undefined;
    }
  },
});

function certPaths(context: SecretsContext): PathSpec[] {
  return [
    {
      pattern: 'certs',
      summary: 'Names of the trusted certificate entries.',
      operations: {
        list: (request) => {
          const keys = request.storage.list('cert/');
          if (keys.length === 0) throw notFound();
          return { data: { keys } };
        },
      },
    },
    {
      pattern: 'certs/:name',
      summary: 'Create, read and delete a trusted certificate entry.',
      fields: CERT_FIELDS,
      operations: {
        update: writeCert,
        read: (request) => {
          const entry = request.storage.get<CertEntry>(`cert/${(request.params.name ?? '').toLowerCase()}`);
          if (!entry) throw notFound();
          const { settings, ...rest } = entry;
          return { data: { ...rest, ...tokenSettingsWire(settings) } };
        },
        delete: (request) => {
          request.storage.delete(`cert/${(request.params.name ?? '').toLowerCase()}`);
          return undefined;
        },
      },
    },
    {
      pattern: 'config',
      summary: 'Method settings.',
      fields: {
        disable_binding: { type: 'bool', description: 'Do not bind renewals to the certificate.', default: false },
        enable_identity_alias_metadata: { type: 'bool', description: 'Add certificate metadata to the alias.', default: false },
      },
      operations: {
        read: (request) => ({ data: request.storage.get('config') ?? { disable_binding: false, enable_identity_alias_metadata: false } }),
        update: (request) => {
          request.storage.put('config', {
            disable_binding: request.fields.get<boolean>('disable_binding'),
            enable_identity_alias_metadata: request.fields.get<boolean>('enable_identity_alias_metadata'),
          });
          return undefined;
        },
      },
    },
    {
      pattern: 'login',
      summary: 'Log in with the TLS client certificate; `name` picks one entry.',
      fields: { name: { type: 'string', description: 'The entry to check against (default: all).', default: '' } },
      unauthenticated: ['update'],
      operations: { update: (request) => login(context, request) },
    },
  ];
}
