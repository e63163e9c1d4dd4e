/** The engine bundle plus amsflow's approval and reminders workflows (signals.test.ts signals every one). */
export * from './workflows';
export { approvalWorkflow, remindersWorkflow } from '../../workflows/engine-workflows';
