/**
 * MIME types and size caps per outbound media kind: WIRE-CONVENTIONS "Local validation"
 * (WhatsApp's published caps, decimal bytes). One table for the messaging client and the
 * workflow media helpers (side-effect free, so workflow code may load it).
 */
export const MEDIA_RULES_TABLE = Object.freeze({
  image: { mimeTypes: ['image/jpeg', 'image/png'], maxBytes: 5_000_000 },
  video: { mimeTypes: ['video/mp4', 'video/3gpp', 'video/3gp'], maxBytes: 16_000_000 },
  audio: {
    mimeTypes: ['audio/aac', 'audio/amr', 'audio/mpeg', 'audio/mp4', 'audio/ogg'],
    maxBytes: 16_000_000,
  },
  document: {
    mimeTypes: [
      'text/plain',
      'application/pdf',
      'application/msword',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'application/vnd.ms-excel',
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'application/vnd.ms-powerpoint',
      'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    ],
    maxBytes: 100_000_000,
  },
  sticker: { mimeTypes: ['image/webp'], maxBytes: 500_000, maxBytesStatic: 100_000 },
} as const);
