import type { EngineFactory } from '../context.js';

/**
 * Engines whose paths arrive in later work. Registering the type now lets the default mounts
 * (`pki/`) exist and lets callers mount them elsewhere; every request under them
 * answers `unsupported path` until the real path tables replace these.
 */
export const placeholderEngine =
  (type: string): EngineFactory =>
  () => ({ type, paths: [] });
