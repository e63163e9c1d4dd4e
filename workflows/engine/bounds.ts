/**
 * Bounds of carried values (pure): a Map with a size bound, and UTF-8 byte counts.
 */

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

/**
 * Byte sizes of carried values, computed without TextEncoder or Buffer (neither is guaranteed in
 * the workflow sandbox). Used to keep the carried state under Temporal's payload limits.
 */

/** UTF-8 length of `text` in bytes. */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff) {
      // A surrogate pair is one 4-byte code point.
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Size in bytes of `value` as JSON. */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value) ?? '');
}
