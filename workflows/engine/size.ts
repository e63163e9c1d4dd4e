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
