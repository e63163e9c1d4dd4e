/** Spec 4.4 and 2.7 media: upload, metadata, download with the same auth, delete, expiry. */
import { createHash } from 'node:crypto';
import { boundaryOf, parseMultipart } from '../../simulator/multipart';
import { AgentHttp, DAY_MS, codeOf, startHarness, type Harness } from './support';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    agents: [
      { id: 'demo', token: 'sim-token', creator: 'user:1001' },
      { id: 'other', token: 'other-token', creator: 'user:2002' },
    ],
    limits: { mediaUpload: 1000, mediaGet: 1000, mediaDelete: 1000 },
    maxMediaBytes: 64 * 1024,
  });
});
afterAll(() => h.sim.close());
beforeEach(() => h.sim.control.reset());

const bytes = Buffer.from('\x89PNG\r\n\x1a\nnot really a picture');

describe('POST /media', () => {
  it('stores a multipart upload and answers { id }', async () => {
    const reply = await h.agent.upload(bytes, 'image/png', 'pic.png');
    expect(reply.status).toBe(200);
    expect(reply.json).toEqual({ id: expect.any(String) });
  });

  it("takes the MIME type from the file part's Content-Type when the type field is absent", async () => {
    const { json } = await h.agent.upload(bytes, undefined, 'pic.png', { partType: 'image/png' });
    const meta = await h.agent.request('GET', `/media/${json.id}`);
    expect(meta.json.mime_type).toBe('image/png');
  });

  it('prefers the type field over the part Content-Type', async () => {
    const { json } = await h.agent.upload(bytes, 'image/jpeg', 'pic.jpg', {
      partType: 'application/octet-stream',
    });
    expect((await h.agent.request('GET', `/media/${json.id}`)).json.mime_type).toBe('image/jpeg');
  });

  it('rejects an upload without a file part with 400 code 100', async () => {
    const form = new FormData();
    form.set('type', 'image/png');
    const reply = await h.agent.request('POST', '/media', { body: form });
    expect([reply.status, codeOf(reply)]).toEqual([400, 100]);
  });

  it('rejects an upload with no MIME type anywhere with 400 code 100', async () => {
    const raw =
      '--B\r\nContent-Disposition: form-data; name="file"; filename="x.bin"\r\n\r\nDATA\r\n--B--\r\n';
    const reply = await h.agent.request('POST', '/media', {
      body: raw,
      headers: { 'content-type': 'multipart/form-data; boundary=B' },
    });
    expect([reply.status, codeOf(reply)]).toEqual([400, 100]);
  });

  it('rejects a body that is not multipart/form-data with 415', async () => {
    const reply = await h.agent.request('POST', '/media', { json: { file: 'x' } });
    expect(reply.status).toBe(415);
    expect(typeof codeOf(reply)).toBe('number');
  });

  it('rejects an upload over maxMediaBytes with 413 and stores nothing', async () => {
    const reply = await h.agent.upload(Buffer.alloc(65 * 1024), 'image/png', 'big.png');
    expect(reply.status).toBe(413);
    expect(typeof codeOf(reply)).toBe('number');
  });
});

describe('GET /media/<id> and the media URL', () => {
  it('answers metadata with messaging_product, id, url, mime_type, sha256 and file_size', async () => {
    const id = await h.agent.uploadId(bytes, 'image/png', 'pic.png');
    const meta = await h.agent.request('GET', `/media/${id}`);
    expect(meta.status).toBe(200);
    expect(meta.json).toEqual({
      messaging_product: expect.any(String),
      id,
      url: expect.stringMatching(/^http:\/\//),
      mime_type: 'image/png',
      sha256: createHash('sha256').update(bytes).digest('hex'),
      file_size: bytes.length,
    });
  });

  it('serves the bytes at the url with the same bearer authentication', async () => {
    const id = await h.agent.uploadId(bytes, 'image/png', 'pic.png');
    const { url } = (await h.agent.request('GET', `/media/${id}`)).json;
    const res = await fetch(url, { headers: { authorization: 'Bearer sim-token' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it.each([
    ['no token', null, 401, 190],
    ['a bad token', 'wrong', 401, 190],
    ["another agent's token", 'other-token', 404, 131009],
  ])('refuses the media url with %s', async (_name, token, status, code) => {
    const id = await h.agent.uploadId();
    const { url } = (await h.agent.request('GET', `/media/${id}`)).json;
    const reply = await h.agent.request('GET', url, { token });
    expect([reply.status, codeOf(reply)]).toEqual([status, code]);
  });

  it('answers metadata of media the human sent, and serves its bytes', async () => {
    const { id } = await h.sim.control.uploadHumanMedia(Buffer.from('voice'), 'audio/ogg', 'note.ogg');
    await h.sim.control.human({ type: 'audio', audio: { id, voice: true } });
    const meta = await h.agent.request('GET', `/media/${id}`);
    expect(meta.json.mime_type).toBe('audio/ogg');
    const download = await h.agent.request('GET', meta.json.url);
    expect(download.text).toBe('voice');
  });

  it('rejects an unknown media id with 400 code 131009', async () => {
    const reply = await h.agent.request('GET', '/media/424242');
    expect([reply.status, codeOf(reply)]).toEqual([400, 131009]);
  });

  it("does not show another agent's media (400 code 131009)", async () => {
    const otherId = await new AgentHttp(h.sim.url, 'other-token').uploadId();
    const reply = await h.agent.request('GET', `/media/${otherId}`);
    expect([reply.status, codeOf(reply)]).toEqual([400, 131009]);
  });
});

describe('DELETE /media/<id>', () => {
  it('answers { success: true } and the id is gone', async () => {
    const id = await h.agent.uploadId();
    const reply = await h.agent.request('DELETE', `/media/${id}`);
    expect([reply.status, reply.json]).toEqual([200, { success: true }]);
    expect((await h.agent.request('GET', `/media/${id}`)).status).toBe(400);
    const send = await h.agent.send({ to: 'user:1001', type: 'image', image: { id } });
    expect(codeOf(send)).toBe(131009);
  });

  it('answers { success: false } for an unknown or already deleted id', async () => {
    const id = await h.agent.uploadId();
    await h.agent.request('DELETE', `/media/${id}`);
    const again = await h.agent.request('DELETE', `/media/${id}`);
    expect([again.status, again.json]).toEqual([200, { success: false }]);
    expect((await h.agent.request('DELETE', '/media/1')).json).toEqual({ success: false });
  });
});

describe('expiry (2.7: 30 days after upload or receipt)', () => {
  it('keeps uploaded media just under 30 days and drops it at 30 days', async () => {
    const id = await h.agent.uploadId();
    await h.sim.control.advanceClock(30 * DAY_MS - 1000);
    expect((await h.agent.request('GET', `/media/${id}`)).status).toBe(200);
    await h.sim.control.advanceClock(1000);
    expect(codeOf(await h.agent.request('GET', `/media/${id}`))).toBe(131009);
  });

  it('expires received media 30 days after receipt, not after its upload by the human', async () => {
    const { id } = await h.sim.control.uploadHumanMedia(Buffer.from('jpg'), 'image/jpeg');
    await h.sim.control.advanceClock(10 * DAY_MS);
    await h.sim.control.human({ type: 'image', image: { id } });
    await h.sim.control.advanceClock(25 * DAY_MS);
    expect((await h.agent.request('GET', `/media/${id}`)).status).toBe(200);
    await h.sim.control.advanceClock(5 * DAY_MS);
    expect((await h.agent.request('GET', `/media/${id}`)).status).toBe(400);
  });
});

describe('multipart parser', () => {
  const body = (parts: string): Buffer => Buffer.from(parts.replace(/\n/g, '\r\n'));

  it('reads fields, file names with quotes and semicolons, and part content types', () => {
    const parsed = parseMultipart(
      body(
        '--XX\nContent-Disposition: form-data; name="type"\n\nimage/png\n--XX\nContent-Disposition: form-data; name="file"; filename="a;\\"b\\".png"\nContent-Type: image/png\n\nDATA\n--XX--\n',
      ),
      'XX',
    );
    expect(parsed).toEqual([
      { name: 'type', filename: undefined, contentType: undefined, data: Buffer.from('image/png') },
      { name: 'file', filename: 'a;"b".png', contentType: 'image/png', data: Buffer.from('DATA') },
    ]);
  });

  it.each([
    ['no delimiter', 'hello'],
    ['no closing delimiter', '--XX\nContent-Disposition: form-data; name="a"\n\nvalue'],
    ['a part without a name', '--XX\nContent-Disposition: form-data\n\nv\n--XX--'],
    ['a header line without a colon', '--XX\nbroken\n\nv\n--XX--'],
  ])('answers undefined for %s', (_name, text) => {
    expect(parseMultipart(body(text), 'XX')).toBeUndefined();
  });

  it.each([
    ['multipart/form-data; boundary=abc', 'abc'],
    ['multipart/form-data; boundary="a b"', 'a b'],
    ['Multipart/Form-Data; charset=x; Boundary=q', 'q'],
    ['multipart/mixed; boundary=abc', undefined],
    ['application/json', undefined],
    [undefined, undefined],
  ])('finds the boundary of %j', (header, boundary) => {
    expect(boundaryOf(header)).toBe(boundary);
  });
});
