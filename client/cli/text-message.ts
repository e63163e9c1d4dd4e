/**
 * The text message `amsflow send` puts in the outbox, checked as the author API checks one (not
 * blank, at most the service's 4096 characters) so that a bad text fails here, before the
 * agent is asked. The client builds it itself: it may not import the workflow code's builders.
 */
import { characterCount, MAX_TEXT_CHARS } from '../../messaging/validation';
import type { OutboundMessage } from '../../protocol/conversations';
import { CommandFailure } from './spec';

/** A text message of `body`, quoting `replyTo` when given; a {@link CommandFailure} when the text is unfit. */
export function cliTextMessage(body: string, replyTo: string | undefined): OutboundMessage {
  if (body.trim() === '') throw new CommandFailure('amsflow send: the text is empty');
  const n = characterCount(body);
  if (n > MAX_TEXT_CHARS)
    throw new CommandFailure(
      `amsflow send: the text has ${n} characters, at most ${MAX_TEXT_CHARS} are allowed`,
    );
  return { type: 'text', text: { body }, ...(replyTo ? { context: { message_id: replyTo } } : {}) };
}
