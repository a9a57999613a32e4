/**
 * How many times a store's whole content was replaced (a reset, a snapshot restore or load). What
 * memory derives from the store and must never outlive such a replacement (the enabled audit
 * devices) compares the generation instead of reading the store on every request. Only this
 * process writes the store (DESIGN.md: one process, one store), so these paths are all there is.
 */
const replacements = new WeakMap<object, number>();

/** Keyed by the store's SQLite connection, so servers sharing a process never see each other's. */
export function storeGeneration(connection: object): number {
  return replacements.get(connection) ?? 0;
}

export function markStoreReplaced(connection: object): void {
  replacements.set(connection, storeGeneration(connection) + 1);
}
