import type { EngineFactory } from '../../context.js';
import { AutoRotation } from './auto-rotate.js';
import { cryptoPaths } from './paths-crypto.js';
import { exportPaths } from './paths-export.js';
import { keyPaths, type KeyDependencies } from './paths-keys.js';
import { lifecyclePaths } from './paths-lifecycle.js';
import { signPaths } from './paths-sign.js';

/**
 * The transit engine: named keys that encrypt, sign, HMAC and derive data keys without handing
 * out key material, in the real service's ciphertext format (`vault:vN:` + base64 of nonce,
 * ciphertext and tag), so ciphertexts and signatures check out with the exported key material.
 */
export const transitEngine: EngineFactory = (context) => {
  const rotation = new AutoRotation({
    db: context.store.db,
    clock: context.clock,
    scheduler: context.scheduler,
    mounts: context.mounts,
  });
  const deps: KeyDependencies = { clock: context.clock, changed: () => rotation.changed() };
  return {
    type: 'transit',
    paths: [...keyPaths(deps), ...lifecyclePaths(deps), ...cryptoPaths(deps), ...signPaths(), ...exportPaths(deps)],
    dueSources: [rotation.dueSource()],
  };
};
