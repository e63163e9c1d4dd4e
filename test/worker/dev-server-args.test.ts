/**
 * The embedded server's command line (worker/dev-server.ts `devServerArgs`), without starting
 * one: loopback only (the UI on its private address), the features amsflow relies on switched on,
 * the SQLite settings, and the caller's settings over the defaults.
 */
import { DEFAULT_SQLITE_PRAGMAS, devServerArgs } from '../../worker/dev-server-args';

/** The values following each occurrence of `flag`. */
const valuesOf = (args: string[], flag: string) => args.flatMap((a, i) => (a === flag ? [args[i + 1]] : []));

describe('devServerArgs', () => {
  it('listens on loopback at the port, with the namespace and the database file', () => {
    const args = devServerArgs(
      { dbFile: '/tmp/x/db.sqlite' },
      { port: 7555, httpPort: 7556, ui: { host: '127.9.8.7', port: 8555 }, namespace: 'ns1' },
    );
    expect(args.slice(0, 2)).toEqual(['server', 'start-dev']);
    expect(valuesOf(args, '--ip')).toEqual(['127.0.0.1']);
    expect(valuesOf(args, '--port')).toEqual(['7555']);
    expect(valuesOf(args, '--http-port')).toEqual(['7556']);
    expect(valuesOf(args, '--ui-ip')).toEqual(['127.9.8.7']);
    expect(valuesOf(args, '--ui-port')).toEqual(['8555']);
    expect(valuesOf(args, '--db-filename')).toEqual(['/tmp/x/db.sqlite']);
    expect(valuesOf(args, '--namespace')).toEqual(['ns1']);
    expect(args).not.toContain('--headless');
  });

  it('runs headless without a UI port, and serves no metrics unless asked', () => {
    const args = devServerArgs({ dbFile: 'db' }, { port: 7555, httpPort: 7556, namespace: 'default' });
    expect(args).toContain('--headless');
    expect(args).not.toContain('--ui-port');
    expect(args).not.toContain('--metrics-port');
  });

  it("serves the server's own metrics at the port given", () => {
    const args = devServerArgs(
      { dbFile: 'db' },
      { port: 7555, httpPort: 7556, metricsPort: 7557, namespace: 'default' },
    );
    expect(valuesOf(args, '--metrics-port')).toEqual(['7557']);
  });

  it("switches on updates, multi-operations and the cancel of a stopping worker's polls, and lets the caller add and override settings", () => {
    const args = devServerArgs(
      {
        dbFile: 'db',
        dynamicConfig: { 'frontend.enableUpdateWorkflowExecution': false, 'limit.x': 5 },
        sqlitePragmas: { synchronous: 'full' },
      },
      { port: 1, httpPort: 2, namespace: 'default' },
    );
    expect(valuesOf(args, '--dynamic-config-value')).toEqual([
      'frontend.enableUpdateWorkflowExecution=false',
      'frontend.enableExecuteMultiOperation=true',
      'frontend.enableCancelWorkerPollsOnShutdown=true',
      'limit.x=5',
    ]);
    expect(valuesOf(args, '--sqlite-pragma')).toEqual([
      `journal_mode=${DEFAULT_SQLITE_PRAGMAS.journal_mode}`,
      'synchronous=full',
    ]);
  });

  it("runs the stock server's SQLite when asked (no pragma at all), as the benchmark's stock server", () => {
    const args = devServerArgs(
      { dbFile: 'db', sqlitePragmas: false },
      { port: 1, httpPort: 2, namespace: 'default' },
    );
    expect(valuesOf(args, '--sqlite-pragma')).toEqual([]);
  });
});
