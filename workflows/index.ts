/**
 * amsflow's workflow API (`amsflow/workflows`): what a bot author imports in workflow modules.
 * Deterministic code only; the worker bundles it with your handlers. The engine's own signals,
 * queries and ids are in `amsflow/internal` (`workflows/internal.ts`).
 */
export { agentWorkflow } from './agent/workflow';
export { approvalWorkflow } from './approval';
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
  remindersWorkflow,
  scheduleRecurring,
} from './reminders';
export type { RecurringSpec, Reminder, ReminderOptions, RemindersInput, RemindersView } from './reminders';
export type { Weekday } from './reminder-time';
export { REMINDER_COMMANDS, handleReminderCommand, parseReminderCommand } from './reminder-commands';
export type { ReminderCommand } from './reminder-commands';
export { TIME_ZONE_INVALID, setTimeZone, timeZone } from './time-zone';
export type { TimeZoneChange } from './time-zone';
export { TIME_ZONE_COMMANDS, handleTimeZoneCommand, parseTimeZoneCommand } from './time-zone-commands';
export type { TimeZoneCommand } from './time-zone-commands';
export type { ApprovalDecision, ApprovalInput, ApprovalView } from './approval';
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
} from './conversation';
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
} from './conversation';
export { CONVERSATION_CANCELLED, WAIT_TIMEOUT } from '../protocol/failures';
export { INVALID_OPTION, isInvalidOption } from './option-checks';
export type { InvalidOptionDetails } from './option-checks';
export { mediaMessage, textMessage } from './builders';
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
} from './media';
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
} from './media';
export type { TextMessageOptions } from './builders';
export { SEND_FAILURE_TYPES } from '../protocol/failures';
export type {
  HandlerInput,
  InboundMessage,
  OutboundMessage,
  Receipt,
  SendFailureType,
  SendOutcome,
} from './types';
