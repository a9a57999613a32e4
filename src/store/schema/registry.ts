import { blob, index, integer, primaryKey, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { organizations } from './platform.js';
import { agentPools, projects } from './workspaces.js';

/** How a VCS-linked module finds its repository (`vcs-repo` on the wire). */
export interface ModuleVcsRepo {
  identifier: string;
  displayIdentifier: string;
  oauthTokenId: string;
  branch: string;
  ingressSubmodules: boolean;
  /** The secret part of the module's `webhook-url`: its keyed digest, which a delivery is checked against (`SecretsAtRest`)… */
  webhookDigest: string;
  /** …and the secret sealed, opened only to render the URL again. */
  webhookSealed: string;
}

/** What a parsed archive shows about a version (the registry protocol's `root`, `submodules`, …). */
export interface ModuleDetails {
  root: ModulePart;
  submodules: ModulePart[];
  examples: ModulePart[];
  providers: string[];
}

export interface ModulePart {
  path: string;
  name: string;
  readme: string;
  empty: boolean;
  inputs: { name: string; type: string; description: string; default: string; required: boolean }[];
  outputs: { name: string; description: string }[];
  dependencies: { name: string; source: string; version: string }[];
  provider_dependencies: { name: string; namespace: string; source: string; version: string }[];
  resources: { name: string; type: string }[];
}

const createdAt = () => integer('created_at', { mode: 'timestamp_ms' }).notNull();
const updatedAt = () => integer('updated_at', { mode: 'timestamp_ms' }).notNull();

export const registryModules = sqliteTable(
  'registry_modules',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    registryName: text('registry_name').notNull(),
    namespace: text('namespace').notNull(),
    name: text('name').notNull(),
    provider: text('provider').notNull(),
    status: text('status').notNull(),
    noCode: integer('no_code', { mode: 'boolean' }).notNull().default(false),
    vcsRepo: text('vcs_repo', { mode: 'json' }).$type<ModuleVcsRepo>(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('registry_modules_address').on(table.organizationId, table.registryName, table.namespace, table.name, table.provider),
    index('registry_modules_list').on(table.organizationId, table.name, table.id),
  ],
);

export const registryModuleVersions = sqliteTable(
  'registry_module_versions',
  {
    id: text('id').primaryKey(),
    moduleId: text('module_id')
      .notNull()
      .references(() => registryModules.id, { onDelete: 'cascade' }),
    version: text('version').notNull(),
    status: text('status').notNull(),
    source: text('source').notNull(),
    /** The keyed digest of the secret id in the version's upload link (`SecretsAtRest`); uploads are looked up by it. */
    uploadId: text('upload_id').notNull().unique(),
    /** The same secret sealed, opened only to render the link again. */
    uploadSealed: text('upload_sealed'),
    details: text('details', { mode: 'json' }).$type<ModuleDetails>(),
    archive: blob('archive', { mode: 'buffer' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('registry_module_versions_version').on(table.moduleId, table.version)],
);

/** A VCS provider connection of an organization (`oauth-clients`); its base URL is a git location understudy reaches. */
export const oauthClients = sqliteTable('oauth_clients', {
  id: text('id').primaryKey(),
  organizationId: text('organization_id')
    .notNull()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  serviceProvider: text('service_provider').notNull(),
  name: text('name'),
  httpUrl: text('http_url').notNull(),
  apiUrl: text('api_url').notNull(),
  /** The OAuth consumer or application key; returned. */
  key: text('key'),
  /** Bitbucket Server / Data Center: the application link's public key; returned. */
  rsaPublicKey: text('rsa_public_key'),
  /**
   * Whether a `secret` (for Bitbucket Server / Data Center, the private key of the pair) was given.
   * The secret itself is never stored: nothing here talks OAuth to a VCS host.
   */
  hasSecret: integer('has_secret', { mode: 'boolean' }).notNull().default(false),
  /** Available to every project (true) or only to those in `oauth_client_projects`. */
  organizationScoped: integer('organization_scoped', { mode: 'boolean' }).notNull().default(true),
  /** The agent pool that would forward VCS calls (private VCS); kept and returned. */
  agentPoolId: text('agent_pool_id').references(() => agentPools.id, { onDelete: 'set null' }),
  createdAt: createdAt(),
});

/** The projects a connection is attached to (`oauth-clients/:id/relationships/projects`). */
export const oauthClientProjects = sqliteTable(
  'oauth_client_projects',
  {
    oauthClientId: text('oauth_client_id')
      .notNull()
      .references(() => oauthClients.id, { onDelete: 'cascade' }),
    projectId: text('project_id')
      .notNull()
      .references(() => projects.id, { onDelete: 'cascade' }),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.oauthClientId, t.projectId] }), index('oauth_client_projects_project').on(t.projectId)],
);

/** The token of a connection (`oauth-tokens`); `oauth-token-id` of a module points here. */
export const oauthTokens = sqliteTable('oauth_tokens', {
  id: text('id').primaryKey(),
  oauthClientId: text('oauth_client_id')
    .notNull()
    .references(() => oauthClients.id, { onDelete: 'cascade' }),
  /** Whether a private SSH key was set for cloning (`PATCH /oauth-tokens/:id`); the key itself is never stored. */
  hasSshKey: integer('has_ssh_key', { mode: 'boolean' }).notNull().default(false),
  createdAt: createdAt(),
});

/** A no-code module's offer for one variable: the values a no-code workspace may pick from. */
export interface NoCodeVariableOption {
  id: string;
  variableName: string;
  variableType: string;
  options: string[];
}

/**
 * A registry module offered for no-code provisioning (at most one per module). `versionPin` is
 * empty for "the latest version"; the module's `no_code` column mirrors whether an enabled one
 * exists, so module lists need no join.
 */
export const noCodeModules = sqliteTable(
  'no_code_modules',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    moduleId: text('module_id')
      .notNull()
      .references(() => registryModules.id, { onDelete: 'cascade' }),
    enabled: integer('enabled', { mode: 'boolean' }).notNull(),
    versionPin: text('version_pin').notNull(),
    variableOptions: text('variable_options', { mode: 'json' }).$type<NoCodeVariableOption[]>().notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('no_code_modules_module').on(table.moduleId)],
);
