/**
 * amsflow's workflow API (`amsflow/workflows`): what a bot author imports in workflow modules.
 * Deterministic code only; the worker bundles it with your handlers and adds amsflow's own
 * workflows (`amsflow/engine-workflows`, workflows/engine-workflows.ts). The engine's own signals,
 * queries and ids are in `amsflow/internal` (`workflows/internal.ts`).
 */
export {
  DEFAULT_LATE_AFTER,
  DEFAULT_MAX_LATENESS,
  MAX_REMINDERS,
  MAX_REMINDER_TEXT,
  REMINDER_FAILURE_TYPES,
  cancelSchedule,
  describeReminder,
  listSchedules,
  remindAt,
  remindIn,
  scheduleRecurring,
} from './reminders/reminders';
export type {
  RecurringSpec,
  Reminder,
  ReminderOptions,
  RemindersInput,
  RemindersView,
} from './reminders/reminders';
export type { Weekday } from '../core/zoned-time';
export {
  REMINDER_COMMANDS,
  handleReminderCommand,
  parseReminderCommand,
} from './reminders/reminder-commands';
export type { ReminderCommand } from './reminders/reminder-commands';
export { TIME_ZONE_INVALID, setTimeZone, timeZone } from './reminders/time-zone';
export type { TimeZoneChange } from './reminders/time-zone';
export {
  TIME_ZONE_COMMANDS,
  handleTimeZoneCommand,
  parseTimeZoneCommand,
} from './reminders/time-zone-commands';
export type { TimeZoneCommand } from './reminders/time-zone-commands';
export type { ApprovalDecision, ApprovalInput, ApprovalView } from './approvals/approval';
export { askApproval } from './approvals/ask-approval';
export type { AskApprovalOptions, PendingApproval } from './approvals/ask-approval';
export { TOO_MANY_STEPS_TEXT, answerWithModel } from './models/model-turn';
export type { ModelAnswer } from './models/model-turn';
export { DEFAULT_APOLOGY } from './models/model-options';
export type { DoubleTexting, ModelTurnOptions } from './models/model-options';
export { tool } from './models/tool';
export type { ToolCall, ToolDefinition, ToolExecute, ToolSet } from './models/tool';
export { reminderTools } from './models/reminder-tools';
export { approvalTool } from './models/approval-tool';
export {
  DEFAULT_CANCEL_WORDS,
  EXPIRED_QUESTION_TEXT,
  ask,
  firstOf,
  handleMessages,
  invalid,
  isCancelled,
  isText,
  isWaitTimeout,
  nameConversation,
  prompt,
  reply,
  send,
  sendText,
  textOf,
  typing,
  useAgent,
  waitForMessage,
  waitForReceipt,
} from './author/conversation';
export type {
  AskOptions,
  ConversationOptions,
  FirstOfOptions,
  HandlerContext,
  LateHandler,
  MessageHandler,
  NudgeOptions,
  Parser,
  PromptOptions,
  PendingWait,
  PromptResult,
  SchemaLike,
  SideCommand,
  SendOptions,
  SentMessage,
  TextOptions,
  WaitOptions,
  WaitOutcome,
} from './author/conversation';
export { CONVERSATION_CANCELLED, WAIT_TIMEOUT } from '../protocol/failures';
export { INVALID_OPTION, isInvalidOption } from './author/option-checks';
export type { InvalidOptionDetails } from './author/option-checks';
export { mediaMessage, textMessage } from './author/builders';
export {
  MAX_CAPTION_CHARS,
  MAX_INLINE_MEDIA_BYTES,
  MEDIA_FAILURE_TYPES,
  MEDIA_KINDS,
  MEDIA_RULES,
  downloadMedia,
  mediaOf,
  sendAudio,
  sendDocument,
  sendImage,
  sendMedia,
  sendSticker,
  sendVideo,
} from './media/media';
export type {
  AnyMediaOptions,
  CaptionedMediaOptions,
  DocumentOptions,
  DownloadOptions,
  DownloadedMedia,
  InboundMediaInfo,
  MediaBytes,
  MediaFailureType,
  MediaKind,
  MediaKindRule,
  MediaRef,
  MediaSendOptions,
  MediaSource,
  SentMedia,
} from './media/media';
export type { TextMessageOptions } from './author/builders';
export { SEND_FAILURE_TYPES } from '../protocol/failures';
export type {
  HandlerInput,
  InboundMessage,
  OutboundMessage,
  Receipt,
  SendFailureType,
  SendOutcome,
} from '../protocol';
