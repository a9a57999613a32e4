/**
 * `make(key)` remembered for up to `limit` keys, the oldest forgotten first: for pure functions of
 * their key whose results are worth keeping (parsed certificates, opened entries) and whose keys
 * have no bound of their own. A `make` that throws remembers nothing.
 */
export function boundedMemo<T>(limit: number, make: (key: string) => T): (key: string) => T {
  const found = new Map<string, T>();
  return (key) => {
    if (found.has(key)) return found.get(key) as T;
    const value = make(key);
    if (found.size >= limit) found.delete(found.keys().next().value as string);
    found.set(key, value);
    return value;
  };
}
