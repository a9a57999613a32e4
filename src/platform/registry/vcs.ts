import { isAbsolute, join } from 'node:path';
import { GitCli, GitError, type GitSource } from '../../adapters/vcs/git.js';
import { ApiError, unprocessable } from '../../core/errors.js';
import type { Principal } from '../auth/principal.js';
import type { Clock } from '../../core/clock.js';
import type { Db } from '../../store/store.js';
import { Attributes, readResource } from '../jsonapi/body.js';
import { NOT_FOUND } from '../jsonapi/errors.js';
import { OAuthClientService } from '../oauth-clients/service.js';
import * as repo from './repo.js';
import { versionOfTag } from './rules.js';
import type { Loaded, RegistryService } from './service.js';

/** `:org/:repo`, or `:org/:project/_git/:repo` for the one provider kind that nests projects. */
const IDENTIFIER = /^[^/\s]+\/(?:[^/\s]+\/_git\/)?[^/\s]+$/;
/** Registry repositories are named `terraform-<provider>-<name>`. */
const REPOSITORY_NAME = /^terraform-([a-z0-9]+)-(.+)$/;

const pointer = (name: string) => `/data/attributes/vcs-repo/${name}`;

/** Where git finds `identifier` under a connection's base: a path joins, a URL appends. */
export function repositoryUrl(base: string, identifier: string): string {
  if (isAbsolute(base)) return join(base, identifier);
  return `${base.replace(/\/+$/, '')}/${identifier}`;
}

/** Publishing modules from git repositories and ingesting new tags when the webhook is called. */
export class VcsPublisher {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly registry: RegistryService,
    private readonly connections: OAuthClientService,
    private readonly git: GitSource = new GitCli(),
  ) {}

  private async tagged(url: string): Promise<{ version: string; archive: Buffer }[]> {
    try {
      const tags = await this.git.tags(url, (tag) => versionOfTag(tag) !== null);
      return tags.map(({ tag, archive }) => ({ version: versionOfTag(tag)!, archive }));
    } catch (error) {
      if (error instanceof GitError) throw unprocessable(`the repository could not be read: ${error.message}`, pointer('identifier'));
      throw error;
    }
  }

  /** `organizationName` is null on the deprecated path, where the connection alone names it. */
  async publish(principal: Principal, body: unknown, organizationName: string | null): Promise<Loaded> {
    const attributes = new Attributes(readResource(body, ['registry-modules']).attributes);
    const vcs = attributes.nested('vcs-repo');
    if (!vcs) throw unprocessable('vcs-repo is required', '/data/attributes/vcs-repo');
    const identifier = vcs.string('identifier', { required: true }) as string;
    if (!IDENTIFIER.test(identifier))
      throw unprocessable('identifier must look like :org/:repo or :org/:project/_git/:repo', pointer('identifier'));
    // Joined to the connection's base, a `.` or `..` segment would reach repositories beside it.
    if (identifier.split('/').some((segment) => segment === '.' || segment === '..'))
      throw unprocessable('identifier segments must not be . or ..', pointer('identifier'));
    const tokenId = vcs.string('oauth-token-id') ?? undefined;
    const installationId = vcs.string('vcs-app-installation-id') ?? undefined;
    if (tokenId && installationId)
      throw unprocessable('give oauth-token-id or vcs-app-installation-id, not both', pointer('oauth-token-id'));
    if (!tokenId && !installationId)
      throw unprocessable('oauth-token-id or vcs-app-installation-id is required', pointer('oauth-token-id'));
    if (!tokenId)
      throw unprocessable('the VCS app installation is not authorized for this organization', pointer('vcs-app-installation-id'));
    const displayIdentifier = vcs.string('display-identifier') ?? vcs.string('display_identifier') ?? identifier;
    const noCode = attributes.boolean('no-code') ?? false;

    // The connection decides the organization; a path that names another one finds nothing.
    const connection = this.connections.connection(tokenId);
    if (!connection || (organizationName !== null && connection.organization.name !== organizationName)) throw NOT_FOUND;
    const { canManage } = this.registry.organization(principal, connection.organization.name);
    if (!canManage) throw NOT_FOUND;

    const repositoryName = identifier.split('/').pop()!;
    const match = REPOSITORY_NAME.exec(repositoryName);
    if (!match) throw unprocessable('the repository name must be terraform-<provider>-<name>', pointer('identifier'));
    const [, provider, name] = match as unknown as [string, string, string];

    // Call out first (clone and read every tag), then record.
    const tagged = await this.tagged(repositoryUrl(connection.client.httpUrl, identifier));
    const loaded = this.registry.create(principal, connection.organization.name, {
      name,
      provider,
      registryName: 'private',
      noCode,
      vcsRepo: {
        identifier,
        displayIdentifier,
        oauthTokenId: tokenId,
        branch: vcs.string('branch') ?? '',
        ingressSubmodules: vcs.boolean('ingress-submodules') ?? true,
      },
    });
    await this.registry.ingest(loaded.module, tagged);
    return this.registry.getById(principal, loaded.module.id);
  }

  /** A push notification: clone again and add the tags not yet seen. The secret in the URL is the right. */
  async webhook(moduleId: string, secret: string): Promise<{ added: string[]; failed: { version: string; error: string }[] }> {
    const module = repo.findModuleById(this.db, moduleId);
    if (!module?.vcsRepo || !this.registry.webhookMatches(module, secret)) throw NOT_FOUND;
    const connection = this.connections.connection(module.vcsRepo.oauthTokenId);
    if (!connection) throw new ApiError(422, "the module's VCS connection no longer exists");
    const tagged = await this.tagged(repositoryUrl(connection.client.httpUrl, module.vcsRepo.identifier));
    return this.registry.ingest(module, tagged);
  }
}
