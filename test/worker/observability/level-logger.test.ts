/**
 * The three Temporal loggers share one base (worker/observability/level-logger.ts): each writes
 * only `log`, and every level method reaches it with its level. Before, each class wrote the five
 * level methods itself.
 */
import type { LogLevel } from '@temporalio/common';
import { QuietLogger } from '../../../testing/test-runtime';
import { LevelLogger } from '../../../worker/observability/level-logger';
import { AmsflowLogger } from '../../../worker/observability/logger';
import { TaskFailureLogger } from '../../../worker/observability/task-failures';

const METHODS = ['trace', 'debug', 'info', 'warn', 'error'] as const;

describe('LevelLogger', () => {
  it.each([
    ['AmsflowLogger', AmsflowLogger],
    ['TaskFailureLogger', TaskFailureLogger],
    ['QuietLogger', QuietLogger],
  ])('%s extends it and writes no level method of its own', (_, loggerClass) => {
    expect(loggerClass.prototype).toBeInstanceOf(LevelLogger);
    for (const method of METHODS)
      expect(Object.getOwnPropertyNames(loggerClass.prototype)).not.toContain(method);
  });

  it('hands each level method to log with its level, message and meta', () => {
    const seen: [LogLevel, string, unknown][] = [];
    const logger = new (class extends LevelLogger {
      log(level: LogLevel, message: string, meta?: unknown) {
        seen.push([level, message, meta]);
      }
    })();
    for (const method of METHODS) logger[method](method, { n: 1 });
    expect(seen).toEqual(METHODS.map((m) => [m.toUpperCase(), m, { n: 1 }]));
  });

  it("through a subclass: the worker's logger keeps its level and its stream", () => {
    const lines: string[] = [];
    const logger = new AmsflowLogger({
      format: 'json',
      level: 'warn',
      stream: { write: (l: string) => lines.push(l) },
    });
    logger.info('dropped');
    logger.warn('kept');
    expect(lines.map((l) => (JSON.parse(l) as { level: string; msg: string }).msg)).toEqual(['kept']);
  });
});
