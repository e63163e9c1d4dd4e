/**
 * Builders of outbound message bodies (wire shape, without \`to\`). Pure functions: usable in
 * workflow code and outside it.
 */
import { checkText } from './api-checks';
import { checkMessageRef, checkOptions, checkString, invalidOption } from './option-checks';
import type { InboundMessage, OutboundMessage } from '../../protocol/conversations';

const MEDIA_KINDS = ['image', 'video', 'audio', 'document', 'sticker'];

export interface TextMessageOptions {
  /** Quote this message (an inbound message or a message id). */
  replyTo?: InboundMessage | string;
  /** Render a preview of the first URL in the text (it must start with http:// or https://). */
  previewUrl?: boolean;
}

/** A text message body. */
export function textMessage(body: string, options: TextMessageOptions = {}): OutboundMessage {
  checkText('textMessage', body, options as Record<string, unknown>, false);
  return uncheckedTextMessage(body, options);
}

/**
 * {@link textMessage} without its checks, for the agent workflow's own answers: a text that a
 * handler handed it (a late answer's text) must not be able to fail the agent; the outbox's
 * own send checks refuse it instead.
 */
export function uncheckedTextMessage(body: string, options: TextMessageOptions = {}): OutboundMessage {
  const quoted = typeof options.replyTo === 'string' ? options.replyTo : options.replyTo?.id;
  return {
    type: 'text',
    text: options.previewUrl === undefined ? { body } : { body, preview_url: options.previewUrl },
    ...(quoted ? { context: { message_id: quoted } } : {}),
  };
}

/** A media message body (image, video, audio, document or sticker) by uploaded media id. */
export function mediaMessage(
  kind: 'image' | 'video' | 'audio' | 'document' | 'sticker',
  mediaId: string,
  options: { caption?: string; filename?: string; replyTo?: InboundMessage | string } = {},
): OutboundMessage {
  if (!MEDIA_KINDS.includes(kind))
    throw invalidOption('mediaMessage', 'kind', kind, `one of ${MEDIA_KINDS.join(', ')}`);
  checkString('mediaMessage', 'mediaId', mediaId, { max: 1000 });
  checkOptions('mediaMessage', options, ['caption', 'filename', 'replyTo']);
  checkMessageRef('mediaMessage', 'replyTo', options.replyTo);
  const quoted = typeof options.replyTo === 'string' ? options.replyTo : options.replyTo?.id;
  const payload: Record<string, string> = { id: mediaId };
  if (options.caption !== undefined) payload.caption = options.caption;
  if (options.filename !== undefined) payload.filename = options.filename;
  return { type: kind, [kind]: payload, ...(quoted ? { context: { message_id: quoted } } : {}) };
}
