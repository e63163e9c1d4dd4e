import { flagProblem } from '../../chaos/flags';

describe("the chaos command's flags", () => {
  it('accepts the known flags with numbers, and --cluster alone', () => {
    expect(flagProblem([])).toBeUndefined();
    expect(flagProblem(['--cluster', '--agents', '12', '--minutes', '100'])).toBeUndefined();
    expect(flagProblem(['--messages', '2500', '--seed', '3', '--cluster'])).toBeUndefined();
    expect(flagProblem(['--unread-grace-ms', '2000', '--read-late-ms', '3000'])).toBeUndefined();
  });

  it('refuses a flag it does not know, naming it and the known ones', () => {
    const problem = flagProblem(['--cluster', '--keep', '/tmp/x']);
    expect(problem).toMatch(/^unknown argument --keep \(known: --messages, .*--cluster;/);
    expect(flagProblem(['12'])).toMatch(/^unknown argument 12 /);
  });

  it('refuses a number flag without a number', () => {
    expect(flagProblem(['--kills'])).toBe('--kills needs a number, got nothing');
    expect(flagProblem(['--kills', 'many'])).toBe('--kills needs a number, got many');
    expect(flagProblem(['--kills', '-1'])).toBe('--kills needs a number, got -1');
  });
});
