/**
 * Dynamic provider credentials as a phase hook: at the start of each plan and apply, the
 * workspace's `env` variables decide which workload identity tokens the phase gets and which
 * secrets API logins the platform makes with them; the phase's environment (and, for tagged
 * aliases, the `tfc_vault_dynamic_credentials` input variable and token files) carries the
 * results, and the tokens are revoked when the phase ends.
 */
import type { RunVariable } from '../../adapters/executor/index.js';
import { KeptAliveAgents } from '../../core/kept-alive.js';
import type { Runtime } from '../../runtime.js';
import type { PhaseHook, PhaseStart, PhaseVerdict } from '../runs/phase-hooks.js';
import { mintWorkloadToken } from './mint.js';
import type { SigningKeys } from './signing-keys.js';
import { readSettings, SettingsError, type VaultLogin } from './settings.js';
import { LoginFailed, loginWithJwt, type VaultSession } from './vault-login.js';

const suffix = (tag: string | null) => (tag === null ? '' : `_${tag}`);
const plain = (key: string, value: string): RunVariable => ({ key, value, hcl: false, sensitive: false });
const hidden = (key: string, value: string): RunVariable => ({ key, value, hcl: false, sensitive: true });

/** A JSON value as an HCL expression: JSON is HCL's object syntax, once template markers are escaped. */
const hclValue = (value: unknown) =>
  JSON.stringify(value)
    .replace(/\$\{/g, () => '$${')
    .replace(/%\{/g, () => '%%{');

interface ConfigurationFiles {
  token_filename: string;
  address: string;
  namespace: string;
  ca_cert_file: string;
}

const NO_CONFIGURATION: ConfigurationFiles = { token_filename: '', address: '', namespace: '', ca_cert_file: '' };

export class WorkloadIdentityHook implements PhaseHook {
  readonly name = 'dynamic credentials';
  /** Each phase logs in and revokes at the same few addresses: one pool of connections per address. */
  private readonly agents = new KeptAliveAgents();

  constructor(
    private readonly runtime: Runtime,
    private readonly signingKeys: SigningKeys,
  ) {}

  async start(phase: PhaseStart): Promise<PhaseVerdict> {
    let settings;
    try {
      settings = readSettings(phase.environment, phase.phase);
    } catch (error) {
      if (error instanceof SettingsError) return { kind: 'error', message: error.message };
      throw error;
    }
    if (settings.tokens.length === 0 && settings.vault.length === 0) return { kind: 'proceed' };

    const mint = async (audience: string) =>
      (await mintWorkloadToken(this.runtime, this.signingKeys, { names: phase.names, phase: phase.phase, runId: phase.run.id, audience }))
        .token;
    const environment: RunVariable[] = [];
    const secrets: string[] = [];

    for (const request of settings.tokens) {
      const token = await mint(request.audience);
      secrets.push(token);
      environment.push(hidden(`TFC_WORKLOAD_IDENTITY_TOKEN${suffix(request.tag)}`, token));
      phase.log(`Workload identity token for audience "${request.audience}" in TFC_WORKLOAD_IDENTITY_TOKEN${suffix(request.tag)}\n`);
    }

    const sessions: VaultSession[] = [];
    const finish = async () => {
      for (const session of sessions.splice(0)) {
        const problem = await session.revoke();
        if (problem) this.runtime.log.warn({ run: phase.run.id, phase: phase.phase }, `dynamic credentials: ${problem}`);
      }
    };

    let current: VaultLogin | undefined;
    try {
      const tagged = settings.vault.some((login) => login.tag !== null);
      const files = new Map<string | null, ConfigurationFiles>();
      for (const login of settings.vault) {
        current = login;
        const jwt = await mint(login.audience);
        secrets.push(jwt);
        const session = await loginWithJwt(this.agents, login, jwt, phase.signal);
        sessions.push(session);
        secrets.push(session.token);
        phase.log(`${describe(login)}: logged in to ${login.address} with role "${login.role}" for the ${phase.phase} phase\n`);
        const name = login.tag ?? 'default';
        const caFile = login.caCert === null ? '' : await phase.writeCredentialFile(`${name}.ca.pem`, login.caCert);
        if (login.tag === null) {
          environment.push(plain('VAULT_ADDR', login.address), hidden('VAULT_TOKEN', session.token));
          if (login.namespace) environment.push(plain('VAULT_NAMESPACE', login.namespace));
          if (caFile) environment.push(plain('VAULT_CACERT', caFile));
        }
        if (tagged) {
          files.set(login.tag, {
            token_filename: await phase.writeCredentialFile(`${name}.token`, session.token),
            address: login.address,
            namespace: login.namespace ?? '',
            ca_cert_file: caFile,
          });
        }
      }
      const variables: RunVariable[] = [];
      if (tagged) {
        const aliases: Record<string, ConfigurationFiles> = {};
        for (const [tag, described] of files) if (tag !== null) aliases[tag] = described;
        const value = { default: files.get(null) ?? NO_CONFIGURATION, aliases };
        variables.push({ key: 'tfc_vault_dynamic_credentials', value: hclValue(value), hcl: true, sensitive: false });
      }
      return { kind: 'proceed', environment, variables, secrets, finish };
    } catch (error) {
      await finish();
      if (error instanceof LoginFailed && current) return { kind: 'error', message: `${describe(current)}: ${error.message}` };
      throw error;
    }
  }
}

function describe(login: VaultLogin): string {
  return login.tag === null ? 'Vault dynamic credentials' : `Vault dynamic credentials (${login.tag})`;
}
