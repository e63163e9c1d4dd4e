/**
 * The text `amsflow send` puts in the outbox (client/cli/text-message.ts): built by the client
 * itself, checked before the agent is asked, with the author API's limits.
 */
import { cliTextMessage } from '../../client/cli/text-message';
import { CommandFailure } from '../../client/cli/spec';

describe('the text of amsflow send', () => {
  it('is a text message, quoting a message when asked', () => {
    expect(cliTextMessage('hi there', undefined)).toEqual({ type: 'text', text: { body: 'hi there' } });
    expect(cliTextMessage('yes', 'wamid.1')).toEqual({
      type: 'text',
      text: { body: 'yes' },
      context: { message_id: 'wamid.1' },
    });
  });

  it('refuses a blank text and one over 4096 characters (counted as the service counts: code points)', () => {
    expect(() => cliTextMessage('  ', undefined)).toThrow(
      new CommandFailure('amsflow send: the text is empty'),
    );
    expect(() => cliTextMessage('x'.repeat(4097), undefined)).toThrow(/4097 characters, at most 4096/);
    expect(cliTextMessage('😀'.repeat(4096), undefined).text?.body).toHaveLength(8192);
  });
});
