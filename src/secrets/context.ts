import type { Runtime } from '../runtime.js';
import type { Authorizer } from './acl/authorizer.js';
import type { AuditBroker } from './audit/broker.js';
import type { PolicyStore } from './acl/policy-store.js';
import type { RateLimiter } from './quotas/rate-limiter.js';
import type { Backend } from './framework/types.js';
import type { IdentityStore } from './identity/identity-store.js';
import type { OidcProvider } from './identity/oidc/provider.js';
import type { LeaseManager } from './leases/lease-manager.js';
import type { ManagedKeys } from './managed-keys/service.js';
import type { MountTable } from './mounts/mount-table.js';
import type { TokenService } from './tokens/token-service.js';
import type { ResponseWrapper } from './wrapping/response-wrapper.js';

/** Builds an engine's path table (and lease hooks); called once per engine type. */
export type EngineFactory = (context: SecretsContext) => Backend;

/** Everything the secrets tree's backends are built from. */
export interface SecretsContext extends Runtime {
  readonly mounts: MountTable;
  /** Enabled auth methods (`sys/auth`), paths relative to `auth/`. */
  readonly authMounts: MountTable;
  /** Auth methods that can be enabled, by type (`userpass`, `approle`). */
  readonly authMethods: ReadonlyMap<string, EngineFactory>;
  /** Engines that can be mounted, by type (`cubbyhole`, `pki`, `database`, …). */
  readonly engines: ReadonlyMap<string, EngineFactory>;
  /** The built backend of an engine type (cached), for routing and for lease revocation. */
  backend(type: string): Backend | undefined;
  readonly policies: PolicyStore;
  readonly acl: Authorizer;
  readonly tokens: TokenService;
  readonly leases: LeaseManager;
  /** `sys/managed-keys`; engines get signers for the keys their mount may use through it. */
  readonly managedKeys: ManagedKeys;
  /** Enabled audit devices; the router records every request through it. */
  readonly audit: AuditBroker;
  /** Response wrapping: answers kept in single-use tokens' cubbyholes. */
  readonly wrapping: ResponseWrapper;
  /** The identity store (`identity/`): entities, aliases, groups; logins link to it. */
  readonly identity: IdentityStore;
  /** The identity store's OIDC provider (keys, roles, tokens): one per tree, so its handlers and the scheduler share its due cache. */
  readonly oidc: OidcProvider;
  /** Rate-limit quotas (`sys/quotas`), checked where `/v1` requests enter. */
  readonly quotas: RateLimiter;
}
