import { PATCHES, patchListProblems } from '../../../workflows/engine/versions';

describe('workflow versions', () => {
  it('lists only well-formed patches added after the v1 baseline (2026-11-25)', () => {
    expect(patchListProblems(PATCHES)).toEqual([]);
    const entries: [string, { added: string }][] = Object.entries(PATCHES);
    expect(entries.filter(([, entry]) => entry.added <= '2026-11-25').map(([id]) => id)).toEqual([]);
  });

  it('checks each listed patch for an id, a date, a stage and when it may go', () => {
    expect(
      patchListProblems({
        'amsflow-quiet-poll': {
          added: '2026-12-01',
          stage: 'patched',
          change: 'quiet polls',
          mayGo: '2026-12-08',
        },
      }),
    ).toEqual([]);
    expect(
      patchListProblems({
        QuietPoll: { added: '1 Dec', stage: 'gone' as 'patched', change: ' ', mayGo: '' },
      }),
    ).toEqual([
      'QuietPoll: ids are amsflow-<kebab-case>',
      'QuietPoll: added must be a date (YYYY-MM-DD)',
      'QuietPoll: unknown stage',
      'QuietPoll: change and mayGo must say something',
    ]);
  });
});
