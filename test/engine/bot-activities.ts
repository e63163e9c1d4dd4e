/** A bot's own activities module for the engine suites (`AMSFLOW_ACTIVITIES`). */
export async function shout(text: string): Promise<string> {
  return `${text.toUpperCase()}!`;
}
