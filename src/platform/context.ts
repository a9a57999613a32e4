import type { Runtime } from '../runtime.js';

/** What platform routes are built from; an alias today, a place to add shared services later. */
export type PlatformContext = Runtime;
