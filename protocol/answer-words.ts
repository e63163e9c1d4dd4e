/**
 * How a bare answer ("Yes 👍🏽") is keyed: the approval workflow registers its answer words by this
 * key and the agent workflow compares a message's text by it, so both sides use this one rule.
 */

/** The key a bare answer is compared on: trimmed, lower case, emoji skin tones removed. */
export function answerWord(text: string): string {
  return text
    .trim()
    .toLowerCase()
    .replace(/[\u{1F3FB}-\u{1F3FF}]/gu, '')
    .replace(/\uFE0F/g, '');
}
