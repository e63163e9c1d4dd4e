/**
 * The model of the assistant crash suite, for a worker process (`AMSFLOW_MODEL_MODULE`): a
 * scripted model that decides from what it is shown, not from how often it was called, so that a
 * worker started again after a SIGKILL answers the same (its call count starts again at zero).
 */
import { scriptedModel } from '../../testing/scripted-model';

export const model = scriptedModel((call) =>
  call.toolResults.length === 0
    ? { tool: 'bookTable', input: { restaurant: 'Luigi', day: 'Friday', people: 2 } }
    : { text: `Done: ${JSON.stringify(call.toolResults[0].output)}` },
);
