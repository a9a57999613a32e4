import type { Clock } from '../core/clock.js';
import { DurationError, parseDurationMs } from '../core/duration.js';
import { ApiError } from '../core/errors.js';
import { base62 } from '../core/ids.js';
import type { OrganizationRow } from '../platform/auth/principal.js';
import { findRunTaskByName } from '../platform/run-tasks/repo.js';
import type { PlatformServices } from '../platform/context.js';
import { findWorkspaceByName, type WorkspaceRow } from '../platform/workspaces/repo.js';
import type { SeededWorkspace } from '../platform/workspaces/service.js';
import { checkToolVersion } from '../platform/tool-versions/releases.js';
import { PolicyStore } from '../secrets/acl/policy-store.js';
import type { MountRow } from '../secrets/mounts/mount-table.js';
import { MountStorage } from '../secrets/storage/mount-storage.js';
import { sanitizePolicies } from '../secrets/tokens/token-service.js';
import { TokenStore, tokenKey, type TokenEntry } from '../secrets/tokens/token-store.js';
import type { Tx } from '../store/store.js';
import { SeedError } from './errors.js';
import type { SeedRunTaskSpec, SeedSecretsTokenSpec, SeedWorkspaceSpec } from './schema.js';

/**
 * The parts of a seed beyond identities and mounts: workspaces with tags, run tasks, secrets
 * policies, tokens with fixed values and their cubbyhole entries. Like the rest of the seed, each
 * only adds what is missing, so applying a seed twice changes nothing.
 */
export function seedWorkspaces(
  tx: Tx,
  services: PlatformServices,
  organization: OrganizationRow,
  specs: readonly SeedWorkspaceSpec[],
): void {
  for (const spec of specs) {
    const where = `seed organization ${organization.name}, workspace ${spec.name}`;
    if (!findWorkspaceByName(tx, organization.id, spec.name)) {
      const version = spec['tool-version'] ?? spec['terraform-version'];
      const checked = version === undefined ? undefined : checkToolVersion(version);
      if (checked && !checked.ok) throw new SeedError(`${where}: tool-version ${checked.reason}`);
      const settings: SeededWorkspace = {
        name: spec.name,
        description: spec.description ?? null,
        executionMode: spec['execution-mode'] ?? null,
      };
      // Stored as given, as the API stores it (a constraint stays a constraint).
      if (version !== undefined) settings.toolVersion = version.trim();
      if (spec['auto-apply'] !== undefined) settings.autoApply = spec['auto-apply'];
      if (spec['global-remote-state'] !== undefined) settings.globalRemoteState = spec['global-remote-state'];
      services.workspaces.createMany(organization, [settings], tx);
    }
    const workspace = findWorkspaceByName(tx, organization.id, spec.name) as WorkspaceRow;
    // Adding a tag the workspace carries is a no-op, so tags listed later in the file are added.
    services.tags.add(
      tx,
      organization.id,
      workspace.id,
      (spec.tags ?? []).map((name, index) => ({ name, pointer: `/tags/${index}` })),
    );
  }
}

export function seedRunTasks(tx: Tx, services: PlatformServices, organization: OrganizationRow, specs: readonly SeedRunTaskSpec[]): void {
  const missing = specs.filter((spec) => !findRunTaskByName(tx, organization.id, spec.name));
  const inputs = missing.map((spec) => ({
    name: spec.name,
    url: spec.url,
    description: spec.description ?? null,
    hmacKey: spec['hmac-key'] ?? null,
    enabled: spec.enabled ?? true,
  }));
  if (inputs.length > 0) services.runTasks.createMany(organization.id, inputs, tx);
}

/** Policies are written as given (a later seed file may change one); a policy that does not parse stops the start. */
export function seedPolicies(tx: Tx, clock: Clock, specs: readonly { name: string; policy: string }[]): void {
  const store = new PolicyStore(tx, clock);
  for (const spec of specs) {
    if (store.raw(spec.name) === spec.policy) continue;
    try {
      store.put(spec.name, spec.policy);
    } catch (error) {
      if (error instanceof ApiError) throw new SeedError(`seed secrets policy ${spec.name}: ${error.detail}`);
      throw error;
    }
  }
}

/** Orphan service tokens with fixed values, and their cubbyhole entries on every cubbyhole mount. */
export function seedSecretsTokens(tx: Tx, clock: Clock, cubbyholes: readonly MountRow[], specs: readonly SeedSecretsTokenSpec[]): void {
  const store = new TokenStore(tx, clock);
  for (const spec of specs) {
    const where = `seed secrets token ${spec.accessor ?? spec['display-name'] ?? '(unnamed)'}`;
    let token = store.bySecret(spec.id);
    if (!token) {
      if (spec.accessor && store.byAccessor(spec.accessor)) throw new SeedError(`${where}: accessor ${spec.accessor} is already taken`);
      let ttlSeconds: number;
      try {
        ttlSeconds = spec.ttl === undefined ? 0 : Math.floor(parseDurationMs(spec.ttl) / 1000);
      } catch (error) {
        if (error instanceof DurationError) throw new SeedError(`${where}: ttl ${error.message}`);
        throw error;
      }
      const now = clock.nowMs();
      token = {
        id: tokenKey(spec.id),
        secret: spec.id,
        accessor: spec.accessor ?? base62(24),
        parentId: null,
        policies: sanitizePolicies(spec.policies ?? [], !spec['no-default-policy']),
        displayName: spec['display-name'] ? `token-${spec['display-name']}`.replace(/[^a-zA-Z0-9-]/g, '-') : 'token',
        meta: spec.meta && Object.keys(spec.meta).length > 0 ? spec.meta : null,
        path: 'auth/token/create-orphan',
        numUses: 0,
        orphan: true,
        renewable: ttlSeconds > 0,
        ttlSeconds,
        explicitMaxTtlSeconds: 0,
        createdAt: new Date(now),
        expiresAt: ttlSeconds > 0 ? new Date(now + ttlSeconds * 1000) : null,
        lastRenewalAt: null,
        periodSeconds: 0,
        maxTtlSeconds: 0,
        boundCidrs: null,
      } satisfies TokenEntry;
      store.insert(token);
    }
    for (const [path, data] of Object.entries(spec.cubbyhole ?? {})) {
      const key = `${token.accessor}/${path.replace(/^\/+|\/+$/g, '')}`;
      for (const mount of cubbyholes) {
        const storage = new MountStorage(tx, mount.uuid);
        if (storage.get(key) === undefined) storage.put(key, data);
      }
    }
  }
}
