import { showInvisible } from '../../core/visible-text';

describe('text shown as it is', () => {
  it('writes out bidirectional controls and zero-width characters, keeping everything else', () => {
    // "Transfer to DE00 1234" that a right-to-left override shows reversed.
    expect(showInvisible('to \u202E4321 00ED\u202C now')).toBe('to ⟨U+202E⟩4321 00ED⟨U+202C⟩ now');
    expect(showInvisible('pay\u200Bpal \u2066x\u2069 \uFEFF\u200F')).toBe(
      'pay⟨U+200B⟩pal ⟨U+2066⟩x⟨U+2069⟩ ⟨U+FEFF⟩⟨U+200F⟩',
    );
    expect(showInvisible('Book Luigi for 2 on Friday? 👍 ñ ü 日本')).toBe(
      'Book Luigi for 2 on Friday? 👍 ñ ü 日本',
    );
  });
});
