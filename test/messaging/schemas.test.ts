import {
  InboundMessageSchema,
  MediaMetadataSchema,
  SendResponseSchema,
  StatusSchema,
  UpdatePageSchema,
  flattenPage,
  recipientFromPage,
} from '../../messaging';

const page = {
  object: 'agent_messaging_service',
  future_member: { kept: true },
  entry: [
    {
      id: 'demo',
      changes: [
        {
          field: 'messages',
          value: {
            messaging_product: 'agent_messaging',
            contacts: [{ wa_id: 'user:1001', profile: { name: 'Ada' } }],
            messages: [
              {
                from: 'user:1001',
                id: 'wamid.1',
                timestamp: '1700000000',
                type: 'text',
                text: { body: 'hi' },
              },
              {
                from: 'user:1001',
                id: 'wamid.2',
                timestamp: '1700000001',
                type: 'location',
                location: { latitude: 1, longitude: 2 },
                brand_new: 'member',
              },
            ],
            statuses: [
              {
                id: 'wamid.9',
                status: 'queued_somewhere',
                timestamp: '1700000002',
                recipient_id: 'user:1001',
              },
            ],
          },
        },
        { field: 'something_else', value: { other: 1 } },
      ],
    },
  ],
  next_offset: 12,
};

describe('wire schemas', () => {
  it('keeps unknown members and unknown message types of an update page', () => {
    const parsed = UpdatePageSchema.parse(page);
    expect(parsed.future_member).toEqual({ kept: true });
    const flat = flattenPage(parsed);
    expect(flat.messages[1]).toMatchObject({
      type: 'location',
      location: { latitude: 1 },
      brand_new: 'member',
    });
    expect(flat.nextOffset).toBe(12);
    expect(flat.contacts).toHaveLength(1);
  });

  it('passes unknown receipt status values through', () => {
    expect(StatusSchema.parse(page.entry[0].changes[0].value.statuses?.[0]).status).toBe('queued_somewhere');
  });

  it('flattens only the changes that carry message traffic', () => {
    const flat = flattenPage(UpdatePageSchema.parse(page));
    expect(flat.messages.map((m) => m.id)).toEqual(['wamid.1', 'wamid.2']);
    expect(flat.statuses.map((s) => s.id)).toEqual(['wamid.9']);
  });

  it('takes the recipient from the last contact of a page, unchanged', () => {
    expect(recipientFromPage(UpdatePageSchema.parse(page))).toBe('user:1001');
  });

  it('rejects a known message type that lacks its payload object', () => {
    const result = InboundMessageSchema.safeParse({ from: 'user:1', id: 'w', timestamp: '1', type: 'image' });
    expect(result.success).toBe(false);
  });

  it('rejects a page without next_offset', () => {
    expect(UpdatePageSchema.safeParse({ ...page, next_offset: undefined }).success).toBe(false);
  });

  it.each([11, '11'])('accepts media metadata whose file_size is %j', (fileSize) => {
    const meta = {
      id: 'm1',
      url: 'https://x.example/m1',
      mime_type: 'image/png',
      sha256: 'ab',
      file_size: fileSize,
    };
    expect(MediaMetadataSchema.parse(meta).file_size).toBe(fileSize);
  });

  it('requires a message id in a send result', () => {
    expect(SendResponseSchema.safeParse({ messaging_product: 'x', contacts: [], messages: [] }).success).toBe(
      false,
    );
    expect(SendResponseSchema.parse({ messages: [{ id: 'wamid.1', extra: 1 }] }).messages[0]).toEqual({
      id: 'wamid.1',
      extra: 1,
    });
  });
});
