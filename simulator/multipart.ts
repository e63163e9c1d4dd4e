/** One part of a multipart/form-data body. */
export interface FormPart {
  name: string;
  filename?: string;
  contentType?: string;
  data: Buffer;
}

/** Extracts the boundary from a `multipart/form-data; boundary=...` header, or undefined. */
export function boundaryOf(contentType: string | undefined): string | undefined {
  if (!contentType) return undefined;
  const [type, ...params] = contentType.split(';');
  if (type.trim().toLowerCase() !== 'multipart/form-data') return undefined;
  for (const param of params) {
    const eq = param.indexOf('=');
    if (eq < 0) continue;
    if (param.slice(0, eq).trim().toLowerCase() !== 'boundary') continue;
    const value = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, '$1');
    return value.length > 0 && value.length <= 70 ? value : undefined;
  }
  return undefined;
}

function headerParam(header: string, name: string): string | undefined {
  // Quoted values may contain ';', so match them explicitly.
  const re = new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;]*))`, 'i');
  const m = re.exec(header);
  if (!m) return undefined;
  return m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2].trim();
}

/**
 * Parses a multipart/form-data body (RFC 7578). Returns undefined when the body is not
 * well-formed, so the caller can answer 400.
 */
export function parseMultipart(body: Buffer, boundary: string): FormPart[] | undefined {
  const delimiter = Buffer.from(`--${boundary}`);
  const parts: FormPart[] = [];
  let pos = body.indexOf(delimiter);
  if (pos < 0) return undefined;
  for (;;) {
    pos += delimiter.length;
    // The closing delimiter is followed by `--`.
    if (body.subarray(pos, pos + 2).toString() === '--') return parts;
    if (body.subarray(pos, pos + 2).toString() !== '\r\n') return undefined;
    pos += 2;
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0) return undefined;
    const headers = new Map<string, string>();
    for (const line of body.subarray(pos, headerEnd).toString('utf8').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon <= 0) return undefined;
      headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const next = body.indexOf(Buffer.concat([Buffer.from('\r\n'), delimiter]), headerEnd + 4);
    if (next < 0) return undefined;
    const disposition = headers.get('content-disposition');
    if (!disposition || !/^form-data\b/i.test(disposition)) return undefined;
    const name = headerParam(disposition, 'name');
    if (name === undefined) return undefined;
    parts.push({
      name,
      filename: headerParam(disposition, 'filename'),
      contentType: headers.get('content-type'),
      data: body.subarray(headerEnd + 4, next),
    });
    pos = next + 2;
  }
}
