/**
 * `amsflow/worker`: running amsflow's workers in your own process (what `amsflow start` and
 * `npm start` do), bundling a bot, and the activities a custom worker registers. It loads the
 * Temporal worker's native core; an application that only starts agents, asks approvals or reads
 * state imports `amsflow`, which does not.
 */
export { runAmsflow, queueCeiling, type RunningAmsflow } from './run';
// A bot's workflow bundle with amsflow's own workflows (what the worker builds; for AMSFLOW_WORKFLOW_BUNDLE)
export { bundleBot, BotModuleError, ENGINE_WORKFLOWS, type BundleBotOptions } from './bot-bundle';
export { loadConfig, ConfigError, type WorkerConfig, type AgentConfig } from './config';
export { startDevServer, freePort, PortInUseError } from './dev-server';
export type { DevServerOptions, RunningDevServer } from './dev-server';
export { createActivities, type Activities, type ClientRegistry } from '../activities';
export {
  createScheduleActivities,
  type ScheduleActivities,
  type ScheduleActivityOptions,
} from '../activities/schedules';
export {
  createModelActivities,
  type ModelActivities,
  type ModelActivityOptions,
  type WorkerModel,
} from '../activities/model-calls';
