import type { FastifyInstance } from 'fastify';
import type { Runtime } from '../../runtime.js';
import { cloudAKmsStandIn } from './cloud-a-kms.js';
import { cloudCKeyVaultStandIn } from './cloud-c-keyvault.js';

/**
 * Stand-ins for the cloud key services managed keys use. They carry their own authentication
 * (request signatures, bearer challenges), so they sit outside the control plane's guard; each
 * in its own scope, because each parses bodies its own way.
 */
export async function standInsPlugin(app: FastifyInstance, options: { runtime: Runtime }): Promise<void> {
  await app.register(async (scope) => cloudAKmsStandIn(scope, options.runtime), { prefix: '/_emulator' });
  await app.register(async (scope) => cloudCKeyVaultStandIn(scope, options.runtime));
}
