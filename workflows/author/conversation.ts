/**
 * The conversation API in one import (what `amsflow/workflows` re-exports): where a
 * conversation begins (`handlers.ts`), sending (`sending.ts`), waiting with a typed result
 * (`waiting.ts`: `firstOf`), the throwing waits (`asking.ts`: `ask`, `waitForMessage`,
 * `waitForReceipt`), questions with parsing, re-asks and nudges (`prompt.ts`, rules in
 * `prompt-rules.ts`).
 */
export { handleMessages, nameConversation, useAgent } from './handlers';
export type { ConversationOptions, HandlerContext, LateHandler, MessageHandler } from './handlers';
export type { PendingWait, SideCommand } from './conversation-state';
export { release, reply, send, sendText, typing } from './sending';
export type { SendOptions, SentMessage, TextOptions } from './sending';
export { firstOf, isCancelled, isWaitTimeout } from './waiting';
export type { FirstOfOptions, WaitOutcome } from './waiting';
export { ask, waitForMessage, waitForReceipt } from './asking';
export type { AskOptions, WaitOptions } from './asking';
export { prompt } from './prompt';
export type { PromptOptions, PromptResult } from './prompt';
export { DEFAULT_CANCEL_WORDS, invalid } from './prompt-rules';
export type { NudgeOptions, Parser, SchemaLike } from './prompt-rules';
export { EXPIRED_QUESTION_TEXT, isText, textOf } from './text';
