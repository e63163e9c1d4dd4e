import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const running = globalThis.__amsflowDevServer;
  if (!running) return;
  await running.server.stop();
  rmSync(running.dir, { recursive: true, force: true });
}
