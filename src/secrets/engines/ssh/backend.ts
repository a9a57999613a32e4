import type { EngineFactory } from '../../context.js';
import { CaKeys } from './ca.js';
import { caPaths } from './paths-ca.js';
import { sshPaths } from './paths.js';

/**
 * The SSH engine: a CA per mount whose key pair is generated or imported (the private half sealed
 * at rest), roles, and OpenSSH certificates signed in-house (PROTOCOL.certkeys) for given or
 * generated keys; validity reads the injectable clock. OTP roles hand out one-time passwords
 * that `verify` uses up.
 */
export const sshEngine: EngineFactory = (context) => {
  const keys = new CaKeys(context);
  return { type: 'ssh', paths: [...caPaths(keys), ...sshPaths(keys, context.clock)] };
};
