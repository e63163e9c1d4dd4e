import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { PATCHES } from '../../workflows/engine/versions';
import { historiesDir, recordedWorkflowIds, workflowIdsFile } from '../support/histories';
import { bundle } from '../support/temporal';

/**
 * Every history under test/histories/ was recorded from a real run (AMSFLOW_RECORD_HISTORIES=1).
 * Replaying them against today's workflow code catches non-deterministic changes.
 */
const files = readdirSync(historiesDir).filter(
  (f) => f.endsWith('.json') && join(historiesDir, f) !== workflowIdsFile,
);
const workflowIds = recordedWorkflowIds();

describe('replay of recorded histories', () => {
  it('has recorded histories to replay, each with its workflow id', () => {
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => !workflowIds[f.replace(/\.json$/, '')])).toEqual([]);
  });

  it('finds in the recorded histories only patch ids the versions module lists', () => {
    const listed = new Set(Object.keys(PATCHES));
    const unlisted = files.flatMap((file) =>
      patchIdsOf(JSON.parse(readFileSync(join(historiesDir, file), 'utf8')))
        .filter((id) => !listed.has(id))
        .map((id) => `${file}: ${id}`),
    );
    expect(unlisted).toEqual([]);
  });

  it('replays every recorded history without a determinism error', async () => {
    const workflowBundle = await bundle(require.resolve('../replay/all-workflows'));
    const histories = files.map((file) => ({
      workflowId: workflowIds[file.replace(/\.json$/, '')],
      history: JSON.parse(readFileSync(join(historiesDir, file), 'utf8')),
    }));
    const results: { workflowId: string; error?: unknown }[] = [];
    for await (const result of Worker.runReplayHistories(
      { workflowBundle, replayName: 'amsflow-replay' },
      histories,
    )) {
      results.push({ workflowId: result.workflowId, error: result.error });
    }
    expect(results.map((r) => r.workflowId).sort()).toEqual(histories.map((h) => h.workflowId).sort());
    expect(results.filter((r) => r.error).map((r) => `${r.workflowId}: ${String(r.error)}`)).toEqual([]);
  });
});

/** The patch ids a history's `core_patch` markers record (payload: JSON `{ id, deprecated }`). */
function patchIdsOf(history: {
  events?: { markerRecordedEventAttributes?: { markerName?: string; details?: Record<string, unknown> } }[];
}): string[] {
  return (history.events ?? []).flatMap((e) => {
    const marker = e.markerRecordedEventAttributes;
    if (marker?.markerName !== 'core_patch') return [];
    const data = (marker.details?.['patch-data'] as { payloads?: { data?: string }[] } | undefined)
      ?.payloads?.[0]?.data;
    return [data ? (JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { id: string }).id : '?'];
  });
}
