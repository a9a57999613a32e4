/**
 * The two spellings of every identifier the spec neutralised. Input accepts both, always; output
 * follows `UNDERSTUDY_DIALECT`. This table is the only place that knows the pairs — the README's
 * dialect table is checked against it by a test.
 */
export type Dialect = 'spec' | 'upstream';

export const DIALECTS: readonly Dialect[] = ['spec', 'upstream'];

export interface DialectTerm {
  spec: string;
  upstream: string;
  /** Where the identifier appears, for the README. */
  where: string;
}

export const DIALECT_TERMS: readonly DialectTerm[] = [
  { spec: 'tool-version', upstream: 'terraform-version', where: 'workspace attribute' },
  { spec: 'svc-api', upstream: 'tfe-api', where: 'workspace, run, configuration version and registry module version `source` value' },
  { spec: 'svc-ui', upstream: 'tfe-ui', where: 'workspace `source` value' },
  {
    spec: 'svc-configuration-version',
    upstream: 'tfe-configuration-version',
    where: "run `source` value (queued by a configuration version's upload)",
  },
  { spec: 'sms-settings', upstream: 'twilio-settings', where: 'admin SMS settings type and path' },
  { spec: 'sms', upstream: 'twilio', where: 'admin SMS settings id' },
  { spec: 'cloud-a-access-key-id', upstream: 'aws-access-key-id', where: 'cost-estimation attribute' },
  { spec: 'cloud-a-secret-key', upstream: 'aws-secret-key', where: 'cost-estimation attribute' },
  { spec: 'cloud-b-credentials', upstream: 'gcp-credentials', where: 'cost-estimation attribute' },
  { spec: 'cloud-c-client-id', upstream: 'azure-client-id', where: 'cost-estimation attribute' },
  { spec: 'cloud-c-client-secret', upstream: 'azure-client-secret', where: 'cost-estimation attribute' },
  { spec: 'cloud-c-subscription-id', upstream: 'azure-subscription-id', where: 'cost-estimation attribute' },
  { spec: 'cloud-c-tenant-id', upstream: 'azure-tenant-id', where: 'cost-estimation attribute' },
  { spec: 'X-Store-Token', upstream: 'X-Vault-Token', where: 'secrets API token header' },
  { spec: 'last_store_rotation', upstream: 'last_vault_rotation', where: 'database static credentials field' },
  { spec: 'cloud-a-kms', upstream: 'awskms', where: 'managed key type' },
  { spec: 'cloud-c-keyvault', upstream: 'azurekeyvault', where: 'managed key type' },
];

const toSpec = new Map<string, string>();
const toUpstream = new Map<string, string>();
for (const term of DIALECT_TERMS) {
  toSpec.set(term.upstream, term.spec);
  toUpstream.set(term.spec, term.upstream);
}

/** The spec spelling of `word`, which the rest of the code uses internally. */
export function canonical(word: string): string {
  return toSpec.get(word) ?? word;
}

/** `word` (a spec spelling) as the given dialect writes it. */
export function spell(word: string, dialect: Dialect): string {
  return dialect === 'upstream' ? (toUpstream.get(word) ?? word) : word;
}

/** A copy of `record` with every key in its spec spelling (for request bodies). */
export function canonicalKeys<T>(record: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const [key, value] of Object.entries(record)) out[canonical(key)] = value;
  return out;
}

/** A copy of `record` with every key spelled for `dialect` (for response bodies). */
export function spellKeys<T>(record: Record<string, T>, dialect: Dialect): Record<string, T> {
  if (dialect === 'spec') return record;
  const out: Record<string, T> = {};
  for (const [key, value] of Object.entries(record)) out[spell(key, dialect)] = value;
  return out;
}
