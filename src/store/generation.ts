/**
 * How many times a store's whole content was replaced (a reset, a snapshot restore or load). What
 * memory derives from the store and must never outlive such a replacement (the enabled audit
 * devices, the rate limiter's counts, the admin settings' limit policy) compares the generation
 * instead of reading the store on every request, and nothing has to be told to forget. Only this
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

/**
 * A value derived from a store's content: made on first use, and made again on the first use
 * after the content was replaced. Held by an object of one server (never at module level), it is
 * the one way such state is dropped on a reset or a restore. `drop()` is for the holder's own
 * writes to what the value derives from (a settings PATCH).
 */
export class StoreDerived<T> {
  private held: { generation: number; value: T } | undefined;

  constructor(
    /** The store's SQLite connection (`store.sqlite`). */
    private readonly connection: object,
    private readonly make: () => T,
  ) {}

  get(): T {
    const generation = storeGeneration(this.connection);
    if (this.held === undefined || this.held.generation !== generation) this.held = { generation, value: this.make() };
    return this.held.value;
  }

  drop(): void {
    this.held = undefined;
  }
}
