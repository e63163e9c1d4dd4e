import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

export const historiesDir = join(__dirname, '..', 'histories');

/**
 * With `AMSFLOW_RECORD_HISTORIES=1`, saves a finished run's real history under
 * `test/histories/<name>.json` for the replay suite. Otherwise does nothing.
 */
export async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.AMSFLOW_RECORD_HISTORIES !== '1') return;
  const history = await handle.fetchHistory();
  mkdirSync(historiesDir, { recursive: true });
  writeFileSync(join(historiesDir, `${name}.json`), historyToJSON(history));
}
