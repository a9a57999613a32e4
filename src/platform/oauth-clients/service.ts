import type { Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import type { Db } from '../../store/store.js';
import { Permissions } from '../auth/permissions.js';
import type { OrganizationRow, Principal } from '../auth/principal.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import * as organizationsRepo from '../organizations/repo.js';
import { OrganizationService } from '../organizations/service.js';
import * as repo from './repo.js';
import type { OAuthClientRow, OAuthTokenRow } from './repo.js';

export interface CreateClient {
  serviceProvider: string;
  name: string | null;
  httpUrl: string;
  apiUrl: string;
}

/**
 * VCS connections. understudy reaches no public VCS host, so a connection's `http-url` is a git
 * location the server can clone from (a local path, `file://`, or an http(s) git server).
 * Managing them is Manage VCS Settings (owners have it).
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

  create(principal: Principal, organizationName: string, input: CreateClient) {
    const organization = this.organizations.visible(principal, organizationName);
    this.managed(principal, organization);
    const at = this.clock.now();
    const client: OAuthClientRow = { id: newId('oc'), organizationId: organization.id, ...input, createdAt: at };
    const token: OAuthTokenRow = { id: newId('ot'), oauthClientId: client.id, createdAt: at };
    repo.insertClient(this.db, client, token);
    return { client, tokens: [token], organization };
  }

  list(principal: Principal, organizationName: string) {
    const organization = this.organizations.visible(principal, organizationName);
    this.managed(principal, organization);
    return {
      organization,
      clients: repo.clientsOf(this.db, organization.id).map((client) => ({ client, tokens: repo.tokensOf(this.db, client.id) })),
    };
  }

  client(principal: Principal, id: string) {
    const client = repo.findClient(this.db, id);
    const organization = client && organizationsRepo.findOrganizationById(this.db, client.organizationId);
    if (!client || !organization) throw NOT_FOUND;
    this.managed(principal, organization);
    return { client, tokens: repo.tokensOf(this.db, client.id), organization };
  }

  /** The token, its connection and organization; 404 unless the caller manages that organization's VCS settings. */
  token(principal: Principal, id: string): { token: OAuthTokenRow; client: OAuthClientRow; organization: OrganizationRow } {
    const token = repo.findToken(this.db, id);
    if (!token) throw NOT_FOUND;
    return { token, ...this.client(principal, token.oauthClientId) };
  }

  /** The connection behind a token id without a permission check (the caller checks its own rule). */
  connection(tokenId: string): { client: OAuthClientRow; organization: OrganizationRow } | undefined {
    const token = repo.findToken(this.db, tokenId);
    const client = token && repo.findClient(this.db, token.oauthClientId);
    const organization = client && organizationsRepo.findOrganizationById(this.db, client.organizationId);
    return client && organization ? { client, organization } : undefined;
  }
}
