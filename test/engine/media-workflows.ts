/**
 * Workflow module of the media suite (test/engine/media-helpers.test.ts): the real agent
 * workflow and a handler that uses the media helpers.
 *   image from the human     downloads it, sends the bytes back as an image ("echo <n> bytes")
 *   document from the human  downloads it, sends the bytes back as a document named "echo-<name>"
 *   media over 256 KiB       refused by downloadMedia (MediaTooLarge); forwarded by id instead
 *   "big"                    sends 256 KiB + 1 bytes as an image (refused: MediaTooLarge)
 *   "image-as-document"      sends PNG bytes as a document (refused: MediaInvalid)
 *   "notmedia"               downloads the media of this text message (refused: NotMediaMessage)
 * A refusal is answered "refused <failure type>", quoting the message.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { handleMessages, reply, textOf, type InboundMessage } from '../../workflows';
import {
  MAX_INLINE_MEDIA_BYTES,
  MEDIA_FAILURE_TYPES,
  downloadMedia,
  mediaOf,
  sendDocument,
  sendImage,
  sendMedia,
  type DownloadedMedia,
} from '../../workflows/media/media';

export { agentWorkflow } from '../../workflows/engine-workflows';

/** The 8-byte PNG signature and a few bytes more: enough for a MIME check. */
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);

async function handle(message: InboundMessage): Promise<void> {
  const media = mediaOf(message);
  if (media) {
    let downloaded: DownloadedMedia;
    try {
      downloaded = await downloadMedia(message);
    } catch (err) {
      if (!(err instanceof ApplicationFailure && err.type === MEDIA_FAILURE_TYPES.tooLarge)) throw err;
      // Large media stay ids: the workflow forwards it without ever holding its bytes.
      await sendMedia(
        media.kind,
        { mediaId: media.mediaId },
        { caption: 'forwarded by id', replyTo: message },
      );
      return;
    }
    if (media.kind === 'image') {
      await sendImage(
        { bytes: downloaded.bytes, mimeType: downloaded.mimeType },
        { caption: `echo ${downloaded.size} bytes`, replyTo: message },
      );
    } else {
      await sendDocument(
        {
          bytes: downloaded.bytes,
          mimeType: downloaded.mimeType,
          filename: `echo-${downloaded.filename ?? 'file'}`,
        },
        { caption: `echo ${downloaded.size} bytes`, replyTo: message },
      );
    }
    return;
  }
  const text = textOf(message);
  if (text === 'big') {
    await sendImage({ bytes: new Uint8Array(MAX_INLINE_MEDIA_BYTES + 1), mimeType: 'image/png' });
  } else if (text === 'image-as-document') {
    await sendDocument({ bytes: PNG, mimeType: 'image/png', filename: 'picture.png' });
  } else if (text === 'notmedia') {
    await downloadMedia(message);
  }
}

export const onMessage = handleMessages(async (message) => {
  try {
    await handle(message);
  } catch (err) {
    if (!(err instanceof ApplicationFailure)) throw err;
    await reply(message, `refused ${err.type}`);
  }
});
