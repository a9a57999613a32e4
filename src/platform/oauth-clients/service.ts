import { createPrivateKey } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { unprocessable } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { findAgentPool } from '../agent-pools/repo.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import * as organizationsRepo from '../organizations/repo.js';
import type { OrganizationService } from '../organizations/service.js';
import { findProjects } from '../projects/repo.js';
import * as repo from './repo.js';
import type { OAuthClientRow, OAuthTokenRow } from './repo.js';

/** The `service-provider` values the real service accepts, with the names it shows for them. */
export const SERVICE_PROVIDERS: Readonly<Record<string, string>> = {
  github: 'GitHub',
  github_enterprise: 'GitHub Enterprise',
  gitlab_hosted: 'GitLab.com',
  gitlab_community_edition: 'GitLab Community Edition',
  gitlab_enterprise_edition: 'GitLab Enterprise Edition',
  bitbucket_hosted: 'Bitbucket Cloud',
  bitbucket_server: 'Bitbucket Server',
  bitbucket_server_legacy: 'Bitbucket Server',
  bitbucket_data_center: 'Bitbucket Data Center',
  ado_server: 'Azure DevOps Server',
  ado_services: 'Azure DevOps Services',
};

/** Providers whose connection is an application link with an RSA key pair (`rsa-public-key` and `secret`). */
const KEY_PAIR_PROVIDERS = new Set(['bitbucket_server', 'bitbucket_data_center']);

const ATTRIBUTE = (name: string) => `/data/attributes/${name}`;
/** The text go-tfe's tests look for when a connection names a pool that is not the organization's. */
export const UNKNOWN_POOL = 'the provided agent pool does not exist or you are not authorized to use it';

/** What a connection's creation and its PATCH both may give. */
interface ClientSettings {
  key?: string | null | undefined;
  /** Only whether one was given is kept. */
  secret?: string | null | undefined;
  rsaPublicKey?: string | null | undefined;
  organizationScoped?: boolean | undefined;
  projectIds?: readonly string[] | undefined;
  agentPoolId?: string | null | undefined;
}

export interface CreateClient extends ClientSettings {
  serviceProvider: string;
  name: string | null;
  httpUrl: string;
  apiUrl: string;
}

/** A PATCH: absent (undefined) members stay as they are; `null` clears where the attribute may be empty. */
export interface UpdateClient extends ClientSettings {
  name?: string | null | undefined;
}

export interface LoadedClient {
  client: OAuthClientRow;
  tokens: OAuthTokenRow[];
  projectIds: string[];
  organization: OrganizationRow;
}

const blankToNull = (value: string | null | undefined) => (value === undefined ? undefined : value === null || value === '' ? null : value);

/**
 * VCS connections. understudy reaches no public VCS host, so a connection's `http-url` is a git
 * location the server can clone from (a local path, `file://`, or an http(s) git server). Keys,
 * the Bitbucket key pair and the agent pool are kept and checked as the real service does, and
 * used for nothing; secrets (`secret`, `private-key`, `oauth-token-string`) are never stored.
 * Managing connections is Manage VCS Settings (owners have it); anyone else gets the 404 of a
 * missing one.
 */
export class OAuthClientService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly organizations: OrganizationService,
  ) {}

  private managed(principal: Principal, organization: OrganizationRow): void {
    new Permissions(this.db).require(principal, organization, 'manage-vcs-settings');
  }

  private loaded(client: OAuthClientRow, organization: OrganizationRow): LoadedClient {
    return { client, tokens: repo.tokensOf(this.db, client.id), projectIds: repo.projectIdsOf(this.db, client.id), organization };
  }

  create(principal: Principal, organizationName: string, input: CreateClient): LoadedClient {
    const organization = this.organizations.visible(principal, organizationName);
    this.managed(principal, organization);
    if (!Object.hasOwn(SERVICE_PROVIDERS, input.serviceProvider)) {
      throw unprocessable('Service provider is not included in the list', ATTRIBUTE('service-provider'));
    }
    const keyPair = KEY_PAIR_PROVIDERS.has(input.serviceProvider);
    const at = this.clock.now();
    const client: OAuthClientRow = {
      id: newId('oc'),
      organizationId: organization.id,
      serviceProvider: input.serviceProvider,
      name: input.name,
      httpUrl: input.httpUrl,
      apiUrl: input.apiUrl,
      key: blankToNull(input.key) ?? null,
      rsaPublicKey: keyPair ? (blankToNull(input.rsaPublicKey) ?? null) : null,
      hasSecret: (blankToNull(input.secret) ?? null) !== null,
      organizationScoped: input.organizationScoped ?? true,
      agentPoolId: input.agentPoolId ? this.poolOf(organization, input.agentPoolId) : null,
      createdAt: at,
    };
    checkKeyPair(client);
    const projectIds = this.projectsOf(organization, input.projectIds ?? [], '/data/relationships/projects/data');
    const token: OAuthTokenRow = { id: newId('ot'), oauthClientId: client.id, hasSshKey: false, createdAt: at };
    repo.insertClient(this.db, client, token, projectIds);
    return { client, tokens: [token], projectIds: [...new Set(projectIds)], organization };
  }

  list(principal: Principal, organizationName: string): { organization: OrganizationRow; clients: LoadedClient[] } {
    const organization = this.organizations.visible(principal, organizationName);
    this.managed(principal, organization);
    return { organization, clients: repo.clientsOf(this.db, organization.id).map((client) => this.loaded(client, organization)) };
  }

  client(principal: Principal, id: string): LoadedClient {
    const client = repo.findClient(this.db, id);
    const organization = client && organizationsRepo.findOrganizationById(this.db, client.organizationId);
    if (!client || !organization) throw NOT_FOUND;
    this.managed(principal, organization);
    return this.loaded(client, organization);
  }

  /** `PATCH /oauth-clients/:id`: every rule is checked on the connection as it would be after the change; a refusal changes nothing. */
  update(principal: Principal, id: string, change: UpdateClient): LoadedClient {
    const { client, organization } = this.client(principal, id);
    const keyPair = KEY_PAIR_PROVIDERS.has(client.serviceProvider);
    const secret = blankToNull(change.secret);
    const next: OAuthClientRow = {
      ...client,
      ...(change.name !== undefined ? { name: change.name } : {}),
      ...(change.key !== undefined ? { key: blankToNull(change.key) ?? null } : {}),
      ...(keyPair && change.rsaPublicKey !== undefined ? { rsaPublicKey: blankToNull(change.rsaPublicKey) ?? null } : {}),
      ...(secret !== undefined ? { hasSecret: secret !== null } : {}),
      ...(change.organizationScoped !== undefined ? { organizationScoped: change.organizationScoped } : {}),
      ...(change.agentPoolId !== undefined
        ? { agentPoolId: change.agentPoolId ? this.poolOf(organization, change.agentPoolId) : null }
        : {}),
    };
    checkKeyPair(next, change.key !== undefined);
    const projectIds =
      change.projectIds === undefined ? undefined : this.projectsOf(organization, change.projectIds, '/data/relationships/projects/data');
    const { id: _id, organizationId: _organization, createdAt: _created, ...columns } = next;
    repo.updateClient(this.db, client.id, columns, projectIds, this.clock.now());
    return this.client(principal, id);
  }

  destroy(principal: Principal, id: string): void {
    const { client } = this.client(principal, id);
    repo.deleteClient(this.db, client.id);
  }

  /** `POST …/relationships/projects`: attaches projects of the connection's organization (422 naming the entry otherwise). */
  addProjects(principal: Principal, id: string, projectIds: readonly string[]): void {
    const { client, organization } = this.client(principal, id);
    repo.addProjects(this.db, client.id, this.projectsOf(organization, projectIds, '/data'), this.clock.now());
  }

  /** `DELETE …/relationships/projects`: detaches them; a project that was not attached is no error. */
  removeProjects(principal: Principal, id: string, projectIds: readonly string[]): void {
    const { client, organization } = this.client(principal, id);
    repo.removeProjects(this.db, client.id, this.projectsOf(organization, projectIds, '/data'));
  }

  /** The token, its connection and organization; 404 unless the caller manages that organization's VCS settings. */
  token(principal: Principal, id: string): { token: OAuthTokenRow; client: OAuthClientRow; organization: OrganizationRow } {
    const token = repo.findToken(this.db, id);
    if (!token) throw NOT_FOUND;
    return { token, ...this.client(principal, token.oauthClientId) };
  }

  /** `GET /organizations/:org/oauth-tokens`: the tokens of every connection of the organization. */
  organizationTokens(principal: Principal, organizationName: string): OAuthTokenRow[] {
    const organization = this.organizations.visible(principal, organizationName);
    this.managed(principal, organization);
    return repo.tokensOfOrganization(this.db, organization.id);
  }

  /**
   * `PATCH /oauth-tokens/:id`: a private SSH key for cloning. It must parse as a private key (PEM
   * or OpenSSH); only that one was set is kept (`has-ssh-key`). Absent or null changes nothing.
   */
  updateToken(principal: Principal, id: string, sshKey: string | null | undefined): OAuthTokenRow {
    const { token } = this.token(principal, id);
    if (sshKey === undefined || sshKey === null) return token;
    if (!isPrivateKey(sshKey)) throw unprocessable('Ssh key is invalid', ATTRIBUTE('ssh-key'));
    repo.updateToken(this.db, token.id, { hasSshKey: true });
    return { ...token, hasSshKey: true };
  }

  /** `DELETE /oauth-tokens/:id`: the connection stays, without this token. */
  destroyToken(principal: Principal, id: string): void {
    const { token } = this.token(principal, id);
    repo.deleteToken(this.db, token.id);
  }

  /** The connection behind a token id without a permission check (the caller checks its own rule). */
  connection(tokenId: string): { client: OAuthClientRow; organization: OrganizationRow } | undefined {
    const token = repo.findToken(this.db, tokenId);
    const client = token && repo.findClient(this.db, token.oauthClientId);
    const organization = client && organizationsRepo.findOrganizationById(this.db, client.organizationId);
    return client && organization ? { client, organization } : undefined;
  }

  private poolOf(organization: OrganizationRow, poolId: string): string {
    const pool = findAgentPool(this.db, poolId);
    if (!pool || pool.organizationId !== organization.id) throw unprocessable(UNKNOWN_POOL, '/data/relationships/agent-pool/data/id');
    return pool.id;
  }

  /** `ids` if each is a project of `organization`; the 422 names the first that is not (`base/<index>`). */
  private projectsOf(organization: OrganizationRow, ids: readonly string[], base: string): string[] {
    const found = new Set(
      findProjects(this.db, [...new Set(ids)])
        .filter((project) => project.organizationId === organization.id)
        .map((project) => project.id),
    );
    const missing = ids.findIndex((id) => !found.has(id));
    if (missing >= 0) throw unprocessable(`Project ${ids[missing]} not found`, `${base}/${missing}`);
    return [...new Set(ids)];
  }
}

/** Whether `text` is a private key: PEM (PKCS#1, PKCS#8, SEC1) or OpenSSH's own format. */
function isPrivateKey(text: string): boolean {
  const trimmed = text.trim();
  const begin = '-----BEGIN OPENSSH PRIVATE KEY-----';
  const end = '-----END OPENSSH PRIVATE KEY-----';
  if (trimmed.startsWith(begin) && trimmed.endsWith(end)) {
    const body = trimmed.slice(begin.length, trimmed.length - end.length).replace(/\s/g, '');
    return /^[A-Za-z0-9+/]+=*$/.test(body) && Buffer.from(body, 'base64').subarray(0, 15).toString('latin1') === 'openssh-key-v1\0';
  }
  try {
    createPrivateKey(text);
    return true;
  } catch {
    return false;
  }
}

/** What the Go client's tests call the provider in the key-pair messages. */
const providerLabel = (client: OAuthClientRow) => SERVICE_PROVIDERS[client.serviceProvider] ?? client.serviceProvider;

/**
 * Bitbucket Server and Data Center connect with an application link: its RSA key pair is the
 * `rsa-public-key` and the `secret` (the private key), given together, and a pair needs the
 * consumer `key`. `keyNamed` says the request set `key`, so the 422 names it before the pair.
 */
function checkKeyPair(client: OAuthClientRow, keyNamed = false): void {
  if (!KEY_PAIR_PROVIDERS.has(client.serviceProvider)) return;
  const paired = client.rsaPublicKey !== null || client.hasSecret;
  const keyMissing = `The Consumer Key for ${providerLabel(client)} must be present. Please add a value for \`key\`.`;
  if (keyNamed && paired && client.key === null) throw unprocessable(keyMissing, ATTRIBUTE('key'));
  if (client.rsaPublicKey !== null && !client.hasSecret) {
    throw unprocessable(
      `The secret (the private key) for ${providerLabel(client)} must be given with rsa-public-key.`,
      ATTRIBUTE('secret'),
    );
  }
  if (client.hasSecret && client.rsaPublicKey === null) {
    throw unprocessable(`The rsa-public-key for ${providerLabel(client)} must be given with the secret.`, ATTRIBUTE('rsa-public-key'));
  }
  if (paired && client.key === null) throw unprocessable(keyMissing, ATTRIBUTE('key'));
}
