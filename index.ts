/**
 * amsflow: a durable automation engine for agents on the Agent Messaging Service.
 * The public API, grouped by audience, is re-exported here.
 */
export { startDevServer, freePort } from './worker/dev-server';
export type { DevServerOptions, RunningDevServer } from './worker/dev-server';
