/**
 * `npm run checks` (scripts/checks.ts): the checks run at once, and one that fails fails the run,
 * named, with its own output printed whole under its name; one that cannot even start is a failure
 * too. Real processes (node itself as the checks).
 */
import { runChecks } from '../../scripts/checks';

describe('runChecks', () => {
  let printed: string[];
  beforeEach(() => {
    printed = [];
    const keep = (line: string) => void printed.push(line);
    jest.spyOn(console, 'log').mockImplementation(keep);
    jest.spyOn(console, 'error').mockImplementation(keep);
  });
  afterEach(() => jest.restoreAllMocks());

  it('names each check that failed, with its output, and passes the others', async () => {
    const failed = await runChecks([
      ['fine', process.execPath, ['-e', 'console.log("all good")']],
      ['broken', process.execPath, ['-e', 'console.error("3 problems"); process.exit(3)']],
      ['missing', '/nonexistent/amsflow-check', []],
    ]);
    expect(failed).toEqual(['broken', 'missing']);
    expect(printed.find((p) => p.startsWith('> fine passed'))).toMatch(/\nall good$/);
    expect(printed.find((p) => p.startsWith('> broken failed (exit 3)'))).toMatch(/\n3 problems$/);
    expect(printed.filter((p) => /missing/.test(p))).toEqual([
      expect.stringMatching(/^missing: could not run \/nonexistent\/amsflow-check: /),
    ]);
  });

  it('passes when every check passes', async () => {
    expect(await runChecks([['a', process.execPath, ['-e', '']]])).toEqual([]);
    expect(printed).toEqual([expect.stringMatching(/^> a passed in [0-9.]+ s$/)]);
  });
});
