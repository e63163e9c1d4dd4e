/**
 * A new Temporal API key (or JWT) for a running worker, without a restart: on SIGHUP, and when the
 * temporal.toml it was read from (`TEMPORAL_CONFIG_FILE`) changes (a Kubernetes secret mounted
 * as that file is updated in place), the profile is read again and a changed key is handed to the
 * worker's connections (the SDK's `setApiKey`: every later call carries it). Only the key moves
 * this way: another address, namespace or TLS setting needs a restart, and says so. A profile
 * that no longer reads keeps the old key and says why. Never logs a key; a new one joins the
 * secrets redacted from every log line.
 */
import { isDeepStrictEqual } from 'node:util';
import { registerSecret } from '../core/redact';
import type { TemporalProfile } from '../tools/temporal-profile';
import { watchFileContent } from './file-watch';

/** What a profile read again changes: the key to hand on, and what only a restart applies. */
export interface ProfileChange {
  apiKey?: string;
  needsRestart: string[];
}

/** Compares the running profile with `next` (pure). */
export function profileChange(current: TemporalProfile, next: TemporalProfile | undefined): ProfileChange {
  if (next === undefined) return { needsRestart: ['the address (the profile has none now)'] };
  const needsRestart = [
    ...(next.address !== current.address ? ['the address'] : []),
    ...(next.namespace !== current.namespace ? ['the namespace'] : []),
    ...(!isDeepStrictEqual(next.tls, current.tls) ? ['the TLS settings'] : []),
    ...(!isDeepStrictEqual(next.metadata, current.metadata) ? ['the gRPC metadata'] : []),
    ...(current.apiKey !== undefined && next.apiKey === undefined ? ['removing the API key'] : []),
  ];
  const apiKey = next.apiKey !== undefined && next.apiKey !== current.apiKey ? next.apiKey : undefined;
  return { ...(apiKey !== undefined ? { apiKey } : {}), needsRestart };
}

/** A connection whose key can change (the SDK's `NativeConnection` and `Connection`). */
export interface KeyedConnection {
  setApiKey(apiKey: string): void | Promise<void>;
}

/** What a reload did. */
export type ReloadOutcome = 'replaced' | 'unchanged' | 'failed';

/** Owns the running profile and hands a new key to the connections. */
export class ApiKeyRotation {
  private reloading: Promise<ReloadOutcome> = Promise.resolve('unchanged');
  private readonly onSignal = () => void this.reload();
  private unwatch: (() => void) | undefined;

  constructor(
    private profile: TemporalProfile,
    private readonly connections: KeyedConnection[],
    private readonly log: (line: string) => void,
    private readonly options: { watchIntervalMs: number } = { watchIntervalMs: 5000 },
  ) {}

  /** Listens for SIGHUP, and watches the profile's file when it has one. */
  start(): this {
    process.on('SIGHUP', this.onSignal);
    if (this.profile.configFile)
      this.unwatch = watchFileContent(this.profile.configFile, this.options.watchIntervalMs, this.onSignal);
    return this;
  }

  stop(): void {
    process.off('SIGHUP', this.onSignal);
    this.unwatch?.();
    this.unwatch = undefined;
  }

  /** Reads the profile again and applies a new key; one reload at a time. */
  reload(): Promise<ReloadOutcome> {
    this.reloading = this.reloading.then(() => this.reloadOnce());
    return this.reloading;
  }

  private async reloadOnce(): Promise<ReloadOutcome> {
    let next: TemporalProfile | undefined;
    try {
      next = this.profile.reload();
    } catch (err) {
      this.log(
        `amsflow: the Temporal profile was read again and cannot be used; the running key stays: ${(err as Error).message}`,
      );
      return 'failed';
    }
    const change = profileChange(this.profile, next);
    if (change.needsRestart.length > 0)
      this.log(
        `amsflow: ${change.needsRestart.join(', ')} of ${this.profile.origin} changed: only a restart applies that (the API key alone changes while running)`,
      );
    if (change.apiKey === undefined) return 'unchanged';
    registerSecret(change.apiKey);
    try {
      for (const connection of this.connections) await connection.setApiKey(change.apiKey);
    } catch (err) {
      this.log(
        `amsflow: the new Temporal API key could not be applied to every connection (a restart applies it): ${(err as Error).message}`,
      );
      return 'failed';
    }
    this.profile = { ...this.profile, apiKey: change.apiKey };
    this.log(
      `amsflow: Temporal API key replaced (from ${this.profile.origin}); later calls carry the new one`,
    );
    return 'replaced';
  }
}
