import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

export const historiesDir = join(__dirname, '..', 'histories');
/** Workflow id of each recorded history (a history file does not carry it; workflow code may read it). */
export const workflowIdsFile = join(historiesDir, 'workflow-ids.json');

export function recordedWorkflowIds(): Record<string, string> {
  return existsSync(workflowIdsFile)
    ? (JSON.parse(readFileSync(workflowIdsFile, 'utf8')) as Record<string, string>)
    : {};
}

/**
 * With `AMSFLOW_RECORD_HISTORIES=1`, saves a run's real history under
 * `test/histories/<name>.json` (and its workflow id) for the replay suite. Otherwise does nothing.
 */
export async function recordHistory(handle: WorkflowHandle, name: string): Promise<void> {
  if (process.env.AMSFLOW_RECORD_HISTORIES !== '1') return;
  const history = await handle.fetchHistory();
  mkdirSync(historiesDir, { recursive: true });
  writeFileSync(join(historiesDir, `${name}.json`), historyToJSON(history));
  const ids = { ...recordedWorkflowIds(), [name]: handle.workflowId };
  writeFileSync(workflowIdsFile, `${JSON.stringify(ids, null, 2)}\n`);
}
