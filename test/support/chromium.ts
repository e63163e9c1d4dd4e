/**
 * Debian's chromium as the browser tests launch it (installed by npm's postinstall; CHROMIUM_PATH
 * overrides): headless, no sandbox, nothing fetched behind the test's back.
 */
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Launches chromium with {@link CHROMIUM_ARGS} and `extraArgs` after them. */
export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [...CHROMIUM_ARGS, ...extraArgs],
    timeout: 30_000,
  });
}
