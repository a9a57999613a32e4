/**
 * What a phase's environment variables ask of dynamic credentials, read as the hosted platform
 * reads them: `TFC_WORKLOAD_IDENTITY_AUDIENCE[_<TAG>]` for plain tokens, and the `TFC_VAULT_*`
 * family (with `_<TAG>` aliases and `TFC_DEFAULT_VAULT_*` shared defaults) for a login to a
 * secrets API. Pure: no I/O, so the rules are tested on their own.
 */
import type { RunVariable } from '../../adapters/executor/index.js';
import type { RunPhase } from '../runs/phase-hooks.js';

export const DEFAULT_VAULT_AUDIENCE = 'vault.workload.identity';
export const DEFAULT_AUTH_PATH = 'jwt';

/** A plain token the run environment gets as `TFC_WORKLOAD_IDENTITY_TOKEN[_<TAG>]`. */
export interface TokenRequest {
  /** null: the untagged one. */
  tag: string | null;
  audience: string;
}

/** One secrets API login: the default configuration (tag null) or a tagged alias. */
export interface VaultLogin {
  tag: string | null;
  address: string;
  role: string;
  authPath: string;
  namespace: string | null;
  audience: string;
  /** PEM text of the CA to trust (decoded from `TFC_VAULT_ENCODED_CACERT`); null: the system's roots. */
  caCert: string | null;
}

export interface DynamicCredentialSettings {
  tokens: TokenRequest[];
  vault: VaultLogin[];
}

export class SettingsError extends Error {}

const TAG = /^[A-Za-z0-9_]+$/;
const RESERVED_TAGS = new Set(['TYPE']);

/** Go's strconv.ParseBool, which the platform's agent applies to `*_PROVIDER_AUTH`. */
function parseBool(name: string, value: string): boolean {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(value)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(value)) return false;
  throw new SettingsError(`${name} must be true or false (got ${JSON.stringify(value)})`);
}

/** Tags named by variables `<prefix>_<TAG>`, in a stable order. */
function tagsOf(environment: ReadonlyMap<string, RunVariable>, prefix: string): string[] {
  const tags: string[] = [];
  for (const key of environment.keys()) {
    if (!key.startsWith(`${prefix}_`)) continue;
    const tag = key.slice(prefix.length + 1);
    if (!TAG.test(tag)) throw new SettingsError(`${key}: a tag may hold only letters, digits and underscores`);
    if (RESERVED_TAGS.has(tag)) throw new SettingsError(`${key}: the tag ${tag} is reserved`);
    tags.push(tag);
  }
  return tags.sort();
}

const suffix = (tag: string | null) => (tag === null ? '' : `_${tag}`);

export function readSettings(environment: ReadonlyMap<string, RunVariable>, phase: RunPhase): DynamicCredentialSettings {
  const value = (key: string): string | undefined => {
    const found = environment.get(key)?.value;
    return found === undefined || found === '' ? undefined : found;
  };

  const tokens: TokenRequest[] = [];
  for (const tag of [null, ...tagsOf(environment, 'TFC_WORKLOAD_IDENTITY_AUDIENCE')]) {
    const audience = value(`TFC_WORKLOAD_IDENTITY_AUDIENCE${suffix(tag)}`);
    if (audience !== undefined) tokens.push({ tag, audience });
  }

  const vault: VaultLogin[] = [];
  for (const tag of [null, ...tagsOf(environment, 'TFC_VAULT_PROVIDER_AUTH')]) {
    const switchName = `TFC_VAULT_PROVIDER_AUTH${suffix(tag)}`;
    const enabled = value(switchName);
    if (enabled === undefined || !parseBool(switchName, enabled)) continue;
    // The configuration's own value, then the shared default every configuration falls back to.
    const setting = (name: string) => value(`TFC_VAULT_${name}${suffix(tag)}`) ?? value(`TFC_DEFAULT_VAULT_${name}`);
    const phaseName = phase.toUpperCase();
    const role = setting(`${phaseName}_ROLE`) ?? setting('RUN_ROLE');
    const address = setting('ADDR');
    const which = tag === null ? 'the default Vault configuration' : `the Vault configuration ${tag}`;
    if (address === undefined) throw new SettingsError(`TFC_VAULT_ADDR${suffix(tag)} is required for ${which}`);
    if (!/^https?:\/\/[^\s]+$/.test(address))
      throw new SettingsError(`TFC_VAULT_ADDR${suffix(tag)} must be an http:// or https:// address (got ${JSON.stringify(address)})`);
    if (role === undefined)
      throw new SettingsError(`TFC_VAULT_RUN_ROLE${suffix(tag)} (or TFC_VAULT_${phaseName}_ROLE${suffix(tag)}) is required for ${which}`);
    const encodedCa = setting('ENCODED_CACERT');
    let caCert: string | null = null;
    if (encodedCa !== undefined) {
      caCert = Buffer.from(encodedCa, 'base64').toString('utf8');
      if (!caCert.includes('-----BEGIN CERTIFICATE-----'))
        throw new SettingsError(`TFC_VAULT_ENCODED_CACERT${suffix(tag)} must be a base64-encoded PEM certificate`);
    }
    vault.push({
      tag,
      address: address.replace(/\/+$/, ''),
      role,
      authPath: (setting('AUTH_PATH') ?? DEFAULT_AUTH_PATH).replace(/^\/+|\/+$/g, ''),
      namespace: setting('NAMESPACE') ?? null,
      audience: setting('WORKLOAD_IDENTITY_AUDIENCE') ?? DEFAULT_VAULT_AUDIENCE,
      caCert,
    });
  }
  return { tokens, vault };
}
