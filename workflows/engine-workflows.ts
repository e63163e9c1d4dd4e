/**
 * amsflow's own workflows (`amsflow/engine-workflows`): the agent, approvals, reminders and model
 * memory. Every bot's bundle carries them: `bundleBot` and the worker add them to the bot module
 * (worker/bot-bundle.ts), so a bot module exports only its handlers. Import them from here only to
 * build a bundle with your own bundler (`bundleWorkflowCode`, for `AMSFLOW_WORKFLOW_BUNDLE`) or
 * to run them in a test worker of your own; the author API (`amsflow/workflows`) has none of them.
 */
export { agentWorkflow } from './engine/workflow';
export { approvalWorkflow } from './approvals/approval';
export { remindersWorkflow } from './reminders/reminders-workflow';
export { modelMemoryWorkflow } from './models/memory-workflow';
