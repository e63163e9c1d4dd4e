/**
 * amsflow's payload converter and argument check (codec/undecodable.ts, the interceptor of
 * workflows/author/checked-handlers.ts) change nothing a recorded history holds: every history
 * under test/histories/ replays without a determinism error against the workflows bundled as
 * `bundleBot` bundles them, with that converter and those interceptors.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundleWorkflowCode, Worker } from '@temporalio/worker';
import { PAYLOAD_CONVERTER_PATH } from '../../codec';
import { WORKFLOW_INTERCEPTOR_MODULES, workflowBundlerOptions } from '../../worker/bundling';
import { historiesDir, recordedWorkflowIds, workflowIdsFile } from '../support/histories';
import { quietLogger } from '../support/temporal';

jest.setTimeout(120_000);

it('replays every recorded history with the converter and the argument check', async () => {
  const files = readdirSync(historiesDir).filter(
    (f) => f.endsWith('.json') && join(historiesDir, f) !== workflowIdsFile,
  );
  const workflowIds = recordedWorkflowIds();
  const workflowBundle = await bundleWorkflowCode({
    ...workflowBundlerOptions(),
    workflowsPath: require.resolve('../replay/all-workflows'),
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
    workflowInterceptorModules: [...WORKFLOW_INTERCEPTOR_MODULES],
    logger: quietLogger,
  });
  const histories = files.map((file) => ({
    workflowId: workflowIds[file.replace(/\.json$/, '')],
    history: JSON.parse(readFileSync(join(historiesDir, file), 'utf8')) as unknown,
  }));
  expect(histories.length).toBeGreaterThan(5);
  const failed: string[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowBundle, replayName: 'amsflow-replay-undecodable' },
    histories,
  )) {
    if (result.error) failed.push(`${result.workflowId}: ${String(result.error)}`);
  }
  expect(failed).toEqual([]);
});
