/**
 * amsflow's bot test harness (`amsflow/testing`): `createBotTestEnv` runs your bot against the
 * simulator and a Temporal test server, with a scripted human. See `testing/README.md`.
 */
export { createBotTestEnv } from './bot-test-env';
export type { BotMessage, BotTestEnv, BotTestEnvOptions, HumanInput, Matcher } from './bot-test-env';
export { ScriptedModel, scriptedModel } from './scripted-model';
export type { Script, ScriptStep, ScriptedCall, ShownMessage } from './scripted-model';
