/**
 * Text a human must read as it is: characters that change how the rest is shown without being
 * seen themselves (bidirectional overrides and isolates, which can show "DE00 1234" for a text
 * holding "4321 00ED"; zero-width characters, which hide a difference between two look-alikes)
 * are written out as `⟨U+202E⟩`, so an approval question shows what will run. Pure.
 */

/** Bidirectional controls (embeddings, overrides, isolates, marks) and zero-width or invisible formatters. */
const INVISIBLE = /[\u061C\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\uFEFF]/g;

/** `text` with each invisible formatting character written out as `⟨U+XXXX⟩`. */
export function showInvisible(text: string): string {
  return text.replace(INVISIBLE, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
}
