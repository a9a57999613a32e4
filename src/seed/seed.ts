import { readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import type { Edition } from '../core/edition.js';
import { canonical, canonicalKeys } from '../core/dialect.js';
import { ApiError } from '../core/errors.js';
import { SETTINGS_NAMES, type SettingsName } from '../platform/admin-settings/fields.js';
import { findSettings } from '../platform/admin-settings/repo.js';
import { seedSettings } from '../platform/admin-settings/service.js';
import type { PlatformContext } from '../platform/context.js';
import type { TeamRow } from '../platform/auth/principal.js';
import { findTeamByName } from '../platform/teams/repo.js';
import { findUserByUsername } from '../platform/users/repo.js';
import { findOrganizationByName } from '../platform/organizations/repo.js';
import { PolicyStore } from '../secrets/acl/policy-store.js';
import { AUTH_MOUNTS, canonicalMountType, MountTable, mountPath } from '../secrets/mounts/mount-table.js';
import { TokenStore } from '../secrets/tokens/token-store.js';
import type { Tx } from '../store/store.js';
import { SeedError } from './errors.js';
import { SeedSchema, type Seed } from './schema.js';
import { seedPolicies, seedRunTasks, seedSecretsTokens, seedWorkspaces } from './world.js';

export { SeedError } from './errors.js';

/** Reads and validates a seed file; any problem is one SeedError naming the file and the field. */
export function readSeedFile(path: string): Seed {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new SeedError(`cannot read seed file ${path}: ${(error as Error).message}`);
  }
  const problem = Value.Errors(SeedSchema, parsed).First();
  if (problem) throw new SeedError(`seed file ${path}: ${problem.path || '/'} ${problem.message}`);
  const seed = parsed as Seed;
  // The top level takes unknown keys (comments), so a misplaced switch would be ignored without a word.
  if ('default-mounts' in seed) throw new SeedError(`seed file ${path}: "default-mounts" belongs inside "secrets"`);
  const users = seed.users ?? [];
  // A seed of secrets only still gives the platform its administrator, so the banner's token works.
  if (users.length === 0) return { ...seed, users: [BUILT_IN_ADMIN], organizations: seed.organizations ?? [] };
  if (!users.some((user) => user['site-admin'])) throw new SeedError(`seed file ${path}: at least one user needs "site-admin": true`);
  return { ...seed, organizations: seed.organizations ?? [] };
}

/** The site administrator of a seed that names no users; it holds `UNDERSTUDY_ADMIN_TOKEN`. */
export const BUILT_IN_ADMIN = { username: 'admin', email: 'admin@understudy.test', 'site-admin': true } as const;

type SeedMount = NonNullable<NonNullable<Seed['secrets']>['mounts']>[number];

/** The secrets mounts of every world, as the real service's development mode has `secret/`. */
export const DEFAULT_SECRETS_MOUNTS: readonly SeedMount[] = [
  { path: 'secret/', type: 'kv', description: 'key/value secret storage', options: { version: '2' } },
  { path: 'pki/', type: 'pki', description: 'certificate authority' },
  { path: 'database/', type: 'database', description: 'database credentials' },
];

/**
 * The seed's mounts after the defaults. A seed mount at, above or below a default's path takes its
 * place; `"default-mounts": false` leaves the defaults out altogether.
 */
function secretsMounts(seed: Seed): SeedMount[] {
  const declared = seed.secrets?.mounts ?? [];
  if (seed.secrets?.['default-mounts'] === false) return declared;
  const paths = declared.map((mount) => mountPath(mount.path));
  const kept = DEFAULT_SECRETS_MOUNTS.filter((mount) => !paths.some((path) => path.startsWith(mount.path) || mount.path.startsWith(path)));
  return [...kept, ...declared];
}

/** What the seed takes from the configuration rather than the file. */
export interface SeedTokens {
  adminToken: string;
  rootToken: string;
  /** Decides defaults of seeded workspaces (`global-remote-state`). */
  edition: Edition;
}

/**
 * Makes the store contain everything the seed describes. It only ever adds what is missing, so it
 * is idempotent: it runs at every start (a file store keeps its data) and after every reset.
 */
export function applySeed(platform: PlatformContext, tx: Tx, seed: Seed, tokens: SeedTokens): string[] {
  const { clock, services } = platform;
  const warnings: string[] = [];
  const at = clock.now();
  const userIds = new Map<string, string>();
  for (const user of seed.users ?? []) {
    const existing = findUserByUsername(tx, user.username);
    const id =
      existing?.id ??
      asSeedError(`seed user ${user.username}`, () =>
        services.users.create({ username: user.username, email: user.email, siteAdmin: user['site-admin'] ?? false }, tx),
      ).id;
    userIds.set(user.username, id);
    for (const token of user.tokens ?? []) services.tokens.ensureUserToken(id, token, 'seed token', tx);
  }
  const admin = (seed.users ?? []).find((user) => user['site-admin']);
  if (admin) services.tokens.ensureUserToken(userIds.get(admin.username) as string, tokens.adminToken, 'understudy admin token', tx);

  for (const spec of seed.organizations ?? []) {
    const organization =
      findOrganizationByName(tx, spec.name) ??
      services.organizations.create(
        {
          name: spec.name,
          email: spec.email,
          settings: {
            membershipLimit: spec['membership-limit'] ?? null,
            ...(spec.entitlements ? { entitlements: spec.entitlements } : {}),
            ...(spec['auto-accept-invitations'] !== undefined ? { autoAcceptInvitations: spec['auto-accept-invitations'] } : {}),
          },
        },
        null,
        tx,
      );
    for (const username of spec.owners ?? []) {
      const userId = userIds.get(username);
      if (!userId) throw new SeedError(`seed organization ${spec.name}: owner "${username}" is not a seed user`);
      services.memberships.addOwner(organization.id, userId, tx);
    }
    for (const teamSpec of spec.teams ?? []) {
      const access = teamSpec['organization-access'] ?? {};
      if (!findTeamByName(tx, organization.id, teamSpec.name)) {
        services.teams.createMany(organization.id, [{ name: teamSpec.name, organizationAccess: access }], tx);
      }
      const team = findTeamByName(tx, organization.id, teamSpec.name) as TeamRow;
      for (const username of teamSpec.members ?? []) {
        const userId = userIds.get(username);
        if (!userId) throw new SeedError(`seed team ${spec.name}/${teamSpec.name}: member "${username}" is not a seed user`);
        services.memberships.addToTeam(organization.id, userId, team.id, tx);
      }
    }
    seedWorkspaces(tx, services, organization, spec.workspaces ?? []);
    seedRunTasks(tx, services, organization, spec['run-tasks'] ?? []);
  }

  applyAdminSettings(tx, seed, at);

  new TokenStore(tx, clock).ensureRoot(tokens.rootToken);
  new PolicyStore(tx, clock).ensureDefault();
  const mounts = new MountTable(tx, clock);
  // Every server has a cubbyhole; the defaults and the seed file's own mounts follow.
  mounts.ensure({ path: 'cubbyhole/', type: 'cubbyhole', description: 'per-token private secret storage', local: true });
  const seedMounts = secretsMounts(seed);
  const own = new Set(seedMounts.map((mount) => mountPath(mount.path)));
  for (const given of seedMounts) {
    const mount = { ...given, ...canonicalMountType(given.type, given.options) };
    // The seed runs at every start. A mount the store already holds, that the seed did not make,
    // wins over the seed's: a store from before a seed mount existed (`secret/` came later) starts.
    const clash = mounts.clashing(mount.path);
    const path = mountPath(mount.path);
    const same = clash?.path === path && clash.type === mount.type;
    const seedsOwnClash = clash !== undefined && clash.path !== path && own.has(clash.path);
    if (clash && !same && !seedsOwnClash) {
      warnings.push(`the seed's ${mount.type} mount at ${path} was skipped: the store has ${clash.type} at ${clash.path}`);
      continue;
    }
    mounts.ensure(mount);
  }
  // `auth/token/` is always enabled, as on every server.
  new MountTable(tx, clock, AUTH_MOUNTS).ensure({ path: 'token/', type: 'token', description: 'token based credentials' });
  seedPolicies(tx, clock, seed.secrets?.policies ?? []);
  seedSecretsTokens(tx, clock, mounts.ofType('cubbyhole'), seed.secrets?.tokens ?? []);
  return warnings;
}

/** A service's refusal of a seed entry stops the start with a SeedError naming the entry. */
function asSeedError<T>(where: string, make: () => T): T {
  try {
    return make();
  } catch (error) {
    if (error instanceof ApiError) throw new SeedError(`${where}: ${error.detail}`);
    throw error;
  }
}

/** The seed's administrator settings, for documents not written yet (a PATCH made since wins on restart). */
function applyAdminSettings(tx: Tx, seed: Seed, at: Date): void {
  for (const [given, attributes] of Object.entries(seed['admin-settings'] ?? {})) {
    const name = canonical(given.endsWith('-settings') ? given : `${given}-settings`).replace(/-settings$/, '') as SettingsName;
    if (!SETTINGS_NAMES.includes(name))
      throw new SeedError(`seed admin-settings: unknown settings "${given}" (expected one of ${SETTINGS_NAMES.join(', ')})`);
    if (findSettings(tx, name)) continue;
    try {
      seedSettings(tx, name, canonicalKeys(attributes), at);
    } catch (error) {
      if (error instanceof ApiError) throw new SeedError(`seed admin-settings/${given}: ${error.detail}`);
      throw error;
    }
  }
}
