// Every workflow type that has recorded histories, for the replay bundle.
export * from '../smoke/workflows';
export * from '../engine/workflows';
export { approvalWorkflow, remindersWorkflow } from '../../workflows/engine-workflows';
