import { blob, index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { organizations } from './platform.js';

const createdAt = () => integer('created_at', { mode: 'timestamp_ms' }).notNull();
const updatedAt = () => integer('updated_at', { mode: 'timestamp_ms' }).notNull();

/**
 * A provider in an organization's registry: `private` ones live in the organization's own
 * namespace and carry versions; `public` ones are curated records of a public provider.
 */
export const registryProviders = sqliteTable(
  'registry_providers',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    registryName: text('registry_name').notNull(),
    namespace: text('namespace').notNull(),
    name: text('name').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [
    uniqueIndex('registry_providers_address').on(table.organizationId, table.registryName, table.namespace, table.name),
    index('registry_providers_list').on(table.organizationId, table.name, table.id),
  ],
);

/**
 * A version of a private provider. Its `SHA256SUMS` and detached signature arrive through
 * self-authorising upload links: each link's secret is stored as a keyed digest (looked up on
 * upload) and sealed (opened to render the link again), as module upload links are.
 */
export const registryProviderVersions = sqliteTable(
  'registry_provider_versions',
  {
    id: text('id').primaryKey(),
    providerId: text('provider_id')
      .notNull()
      .references(() => registryProviders.id, { onDelete: 'cascade' }),
    version: text('version').notNull(),
    keyId: text('key_id').notNull(),
    protocols: text('protocols', { mode: 'json' }).$type<string[]>().notNull(),
    shasums: blob('shasums', { mode: 'buffer' }),
    shasumsSig: blob('shasums_sig', { mode: 'buffer' }),
    shasumsUploadId: text('shasums_upload_id').notNull().unique(),
    shasumsUploadSealed: text('shasums_upload_sealed').notNull(),
    shasumsSigUploadId: text('shasums_sig_upload_id').notNull().unique(),
    shasumsSigUploadSealed: text('shasums_sig_upload_sealed').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('registry_provider_versions_version').on(table.providerId, table.version)],
);

/** One os/arch build of a provider version: its zip's name and SHA-256, and the zip once uploaded. */
export const registryProviderPlatforms = sqliteTable(
  'registry_provider_platforms',
  {
    id: text('id').primaryKey(),
    versionId: text('version_id')
      .notNull()
      .references(() => registryProviderVersions.id, { onDelete: 'cascade' }),
    os: text('os').notNull(),
    arch: text('arch').notNull(),
    filename: text('filename').notNull(),
    shasum: text('shasum').notNull(),
    binary: blob('binary', { mode: 'buffer' }),
    binaryUploadId: text('binary_upload_id').notNull().unique(),
    binaryUploadSealed: text('binary_upload_sealed').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('registry_provider_platforms_platform').on(table.versionId, table.os, table.arch)],
);

/**
 * A GPG public key of a namespace (an organization) in the private registry: provider versions
 * name it by `key-id`, and the provider protocol hands it to the CLI to check signatures.
 */
export const gpgKeys = sqliteTable(
  'gpg_keys',
  {
    id: text('id').primaryKey(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    keyId: text('key_id').notNull(),
    asciiArmor: text('ascii_armor').notNull(),
    source: text('source').notNull(),
    sourceUrl: text('source_url'),
    trustSignature: text('trust_signature').notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (table) => [uniqueIndex('gpg_keys_key').on(table.organizationId, table.keyId)],
);
