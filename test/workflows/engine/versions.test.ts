import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PATCHES, patchListProblems } from '../../../workflows/engine/versions';

const root = join(__dirname, '..', '..', '..');

describe('workflow versions', () => {
  it('lists no patch before 1.0, and no source file branches on one (Worker Versioning moves runs)', () => {
    const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    expect(patchListProblems(PATCHES)).toEqual([]);
    if (!version.startsWith('0.')) return;
    expect(Object.keys(PATCHES)).toEqual([]);
    // Every call of a patch API in our sources (the versions module defines them; tests may plant one).
    const calls = execFileSync(
      'git',
      [
        'grep',
        '--untracked',
        '-nE',
        '\\b(isPatched|patchDeprecated|patched|deprecatePatch)\\(',
        '--',
        '*.ts',
      ],
      {
        cwd: root,
        encoding: 'utf8',
      },
    )
      .split('\n')
      .filter(
        (line) =>
          line &&
          !line.startsWith('test/') &&
          !line.startsWith('workflows/engine/versions.ts:') &&
          // (a comment that names the API is no call)
          !/^[^:]+:\d+:\s*(\*|\/\/)/.test(line),
      );
    expect(calls).toEqual([]);
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
