/**
 * A Map that forgets its oldest entries beyond a limit: every id set the agent remembers (recent
 * message ids, outcomes, routes) is one of these, so carried state has a size bound.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  // Not a parameter property: Map's constructor calls `set` for the initial entries before a
  // parameter property would be assigned, and an unset limit would keep every carried entry.
  private limit = Infinity;

  constructor(limit: number, entries: Iterable<readonly [K, V]> = []) {
    super();
    this.limit = Math.max(0, limit);
    for (const [key, value] of entries) this.set(key, value);
  }

  /** Sets `key` as the newest entry, then drops the oldest ones beyond the limit. */
  override set(key: K, value: V): this {
    if (this.has(key)) this.delete(key);
    super.set(key, value);
    while (this.size > this.limit) this.delete(this.keys().next().value as K);
    return this;
  }
}
