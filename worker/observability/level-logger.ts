/**
 * The shared base of amsflow's Temporal loggers (the worker's `AmsflowLogger`, the
 * `TaskFailureLogger` wrapper, the bot test harness's `QuietLogger`): each says only what `log`
 * does with a line; the level methods the `Logger` interface asks for are written once, here.
 */
import type { LogLevel, LogMetadata, Logger } from '@temporalio/common';

/** Levels from the least to the most severe. */
export const LOG_LEVEL_RANK: Readonly<Record<LogLevel, number>> = {
  TRACE: 0,
  DEBUG: 1,
  INFO: 2,
  WARN: 3,
  ERROR: 4,
};

export abstract class LevelLogger implements Logger {
  abstract log(level: LogLevel, message: string, meta?: LogMetadata): void;

  trace(message: string, meta?: LogMetadata): void {
    this.log('TRACE', message, meta);
  }
  debug(message: string, meta?: LogMetadata): void {
    this.log('DEBUG', message, meta);
  }
  info(message: string, meta?: LogMetadata): void {
    this.log('INFO', message, meta);
  }
  warn(message: string, meta?: LogMetadata): void {
    this.log('WARN', message, meta);
  }
  error(message: string, meta?: LogMetadata): void {
    this.log('ERROR', message, meta);
  }
}
