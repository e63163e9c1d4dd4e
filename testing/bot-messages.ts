/** The chat as a bot test sees it, and how `expectBot` matches a message (pure). */
import type { ConversationEntry } from '../simulator/control-client';

/** One message of the chat. */
export interface BotMessage {
  id: string;
  from: 'bot' | 'human';
  /** 'text', 'image', 'reaction', ... */
  type: string;
  /** The text (a media message's caption), if any. */
  text?: string;
  /** The id of the message it quotes. */
  replyTo?: string;
  /** The message object of its type, as on the wire. */
  payload: unknown;
}

/** A substring, a regular expression, or a predicate. */
export type Matcher = string | RegExp | ((message: BotMessage) => boolean);

export function toBotMessage(entry: ConversationEntry): BotMessage {
  const payload = entry.payload as { body?: unknown; caption?: unknown } | undefined;
  const text =
    typeof payload?.body === 'string'
      ? payload.body
      : typeof payload?.caption === 'string'
        ? payload.caption
        : undefined;
  return {
    id: entry.id,
    from: entry.direction === 'out' ? 'bot' : 'human',
    type: entry.type,
    ...(text === undefined ? {} : { text }),
    ...(entry.context?.id ? { replyTo: entry.context.id } : {}),
    payload: entry.payload,
  };
}

export function matches(message: BotMessage, matcher: Matcher): boolean {
  if (typeof matcher === 'function') return matcher(message);
  if (typeof matcher === 'string') return (message.text ?? '').includes(matcher);
  return matcher.test(message.text ?? '');
}

export function describeMatcher(matcher: Matcher): string {
  if (typeof matcher === 'function') return `a message for which ${matcher.name || 'the predicate'} holds`;
  return typeof matcher === 'string' ? JSON.stringify(matcher) : String(matcher);
}

/** The chat as a failed expectation shows it. */
export function showTranscript(all: BotMessage[]): string {
  return [
    'transcript:',
    ...all.map((m) => `  ${m.from === 'bot' ? 'bot  ' : 'human'}: ${m.text ?? `<${m.type}>`}`),
  ].join('\n');
}
