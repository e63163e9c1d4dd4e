/**
 * **Answer text**: a model's answer as the messages the service takes (pure). A text message holds
 * at most 4096 characters (Unicode code points, spec 4.1), so a longer answer is split: at the
 * last paragraph break that fits, else the last line break, else the last sentence end, else the
 * last space, and only as a last resort inside a word. Parts are trimmed; none is empty.
 */

/** The service's cap on a text body, in characters. */
export const MAX_MESSAGE_CHARS = 4096;

/** The index (in UTF-16 units) just past the first `max` code points of `text`. */
function cutAt(text: string, max: number): number {
  let units = 0;
  let points = 0;
  for (const ch of text) {
    if (points === max) break;
    units += ch.length;
    points++;
  }
  return units;
}

/** Where to end the part that starts `text` and holds at most `limit` units: the best boundary. */
function boundary(text: string, limit: number): number {
  const window = text.slice(0, limit);
  // Not too early: a part shorter than a quarter of the cap would make many small messages.
  const floor = Math.floor(limit / 4);
  const candidates = [/\n\s*\n/g, /\n/g, /[.!?…]["')\]]*\s/g, /\s/g];
  for (const pattern of candidates) {
    let end = -1;
    for (const m of window.matchAll(pattern)) end = m.index + m[0].length;
    if (end > floor) return end;
  }
  return limit;
}

/** `text` in parts of at most `max` characters, split at paragraph, line, sentence or word ends. */
export function splitAnswer(text: string, max = MAX_MESSAGE_CHARS): string[] {
  const parts: string[] = [];
  let rest = text.trim();
  while (rest.length > 0) {
    const limit = cutAt(rest, max);
    if (limit >= rest.length) {
      parts.push(rest);
      break;
    }
    const end = boundary(rest, limit);
    const part = rest.slice(0, end).trim();
    if (part) parts.push(part);
    rest = rest.slice(end).trim();
  }
  return parts;
}
