/** `AMSFLOW_BOT_CONFIG`, read and checked for `loadConfig` (config.ts). */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

/** The bot configuration is in every handler's start event: keep it small. */
export const MAX_BOT_CONFIG_BYTES = 64 * 1024;

/** `AMSFLOW_BOT_CONFIG`: JSON text, or the path of a JSON file. */
export function readBotConfig(value: string, problems: string[]): unknown {
  const text = value.trim();
  const inline = /^[[{"]/.test(text);
  let json = text;
  if (!inline) {
    try {
      json = readFileSync(resolve(text), 'utf8');
    } catch (err) {
      problems.push(`AMSFLOW_BOT_CONFIG: neither JSON nor a readable file (${(err as Error).message})`);
      return undefined;
    }
  }
  if (Buffer.byteLength(json) > MAX_BOT_CONFIG_BYTES) {
    problems.push(
      `AMSFLOW_BOT_CONFIG: larger than ${MAX_BOT_CONFIG_BYTES} bytes (it is in every handler's history)`,
    );
    return undefined;
  }
  try {
    return JSON.parse(json) as unknown;
  } catch (err) {
    problems.push(
      `AMSFLOW_BOT_CONFIG: ${inline ? 'not valid JSON' : `${resolve(text)} is not valid JSON`} (${(err as Error).message})`,
    );
    return undefined;
  }
}
