import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import * as path from 'node:path';
import { ApiError, ErrorCode } from './errors';
import { sendError } from './http-util';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
};

/** Only flat file names with a known extension: no path can escape the web directory. */
const FILE_RE = /^\/([A-Za-z0-9_-][A-Za-z0-9._-]*\.(?:html|js|css|svg|png))$/;

/** Serves the web chat: `/` -> index.html, `/<file>` -> the file in `webDir`. */
export async function serveStatic(
  webDir: string,
  pathname: string,
  res: ServerResponse,
  head: boolean,
): Promise<void> {
  const name = pathname === '/' ? 'index.html' : FILE_RE.exec(pathname)?.[1];
  if (!name) {
    sendError(res, new ApiError(404, ErrorCode.notFound, `unknown path ${pathname}`));
    return;
  }
  let data: Buffer;
  try {
    data = await readFile(path.join(webDir, name));
  } catch {
    sendError(res, new ApiError(404, ErrorCode.notFound, `no such file ${pathname}`));
    return;
  }
  res.writeHead(200, {
    'content-type': CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream',
    'content-length': data.length,
    'cache-control': 'no-cache',
    'x-content-type-options': 'nosniff',
    // No other site may frame the chat (and click its buttons for the human).
    'content-security-policy': "frame-ancestors 'none'",
  });
  res.end(head ? undefined : data);
}
