import type { EngineFactory } from '../../context.js';
import { PasswordPolicyStore } from '../../passwords/policy-store.js';
import { connectionPaths } from './connections.js';
import { ConnectionPools } from './pools.js';
import { renewCredential, revokeCredential, rolePaths } from './roles.js';
import { StaticRoles } from './static-roles.js';

/**
 * The database engine: connections to real databases, dynamic roles whose credentials are real
 * users created per request (leased; revocation and expiry drop them), and static roles whose
 * existing user's password is rotated on the clock. Drivers are the plugins in src/adapters/sql.
 */
export const databaseEngine: EngineFactory = (context) => {
  const pools = new ConnectionPools();
  const passwords = new PasswordPolicyStore(context.store.db);
  const staticRoles = new StaticRoles({
    db: context.store.db,
    pools,
    passwords,
    clock: context.clock,
    scheduler: context.scheduler,
    mounts: context.mounts,
    dialect: context.config.dialect,
    engineType: 'database',
  });
  return {
    type: 'database',
    paths: [
      ...connectionPaths(pools, passwords),
      ...rolePaths({ pools, passwords, leases: context.leases, clock: context.clock }),
      ...staticRoles.paths(),
    ],
    revokeLease: (lease, storage) => revokeCredential(pools, lease, storage),
    renewLease: (lease, storage, expiresAt) => renewCredential(pools, lease, storage, expiresAt),
    dueSources: [staticRoles.dueSource()],
    close: () => pools.closeAll(),
    unmounted: (mountUuid) => pools.closeMount(mountUuid),
  };
};
