/**
 * The web chat's media routes of the control API: the human's uploads (`POST /_control/media`)
 * and the bytes of any live media item (`GET /_control/media/<id>`), served as media-headers.ts
 * says, never as a page.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, ErrorCode, badRequest } from './errors';
import { mediaTypeOf, readBody } from './http-util';
import { mediaHeaders } from './media-headers';
import type { Platform } from './platform';
import type { AgentState } from './state';

/** A MIME type as `?type=` names it. */
const MIME_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/;

/**
 * Stores the human's upload: the bytes as application/octet-stream (a type no page may send
 * across sites without a preflight), their own type in `?type=`, the name in `?filename=`.
 */
export async function uploadHumanMedia(
  platform: Platform,
  req: IncomingMessage,
  url: URL,
  agent: AgentState,
): Promise<{ id: string }> {
  if (mediaTypeOf(req) !== 'application/octet-stream') {
    await readBody(req, platform.options.maxMediaBytes).catch(() => undefined);
    throw new ApiError(
      415,
      ErrorCode.unsupportedMediaType,
      'Content-Type must be application/octet-stream (the file type goes in ?type=)',
    );
  }
  const bytes = await readBody(req, platform.options.maxMediaBytes);
  const mimeType = (url.searchParams.get('type') ?? 'application/octet-stream').toLowerCase();
  if (!MIME_TYPE.test(mimeType)) throw badRequest(ErrorCode.invalidParameter, 'type must be a MIME type');
  const filename = url.searchParams.get('filename') ?? undefined;
  return { id: platform.media.store(agent, bytes, mimeType, filename, 'human').id };
}

/** Writes the bytes of media `id` (the human's or an agent's) as a download; 404 when unknown. */
export async function serveMedia(platform: Platform, res: ServerResponse, id: string): Promise<undefined> {
  const media = platform.media.ofAnyAgent(id);
  if (!media) throw new ApiError(404, ErrorCode.notFound, `media ${id} is unknown or expired`);
  res.writeHead(200, { ...mediaHeaders(media), 'content-length': media.bytes.length });
  res.end(media.bytes);
  return undefined;
}
