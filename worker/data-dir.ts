/**
 * The data dir (`AMSFLOW_DATA_DIR`, default `.amsflow`): its lock, what the embedded parts keep
 * there (see worker/run.ts), and that it is readable by its user only: it holds every chat. The
 * first step of `runAmsflow`.
 */
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { AmsflowError } from '../core/amsflow-error';
import { AmsflowErrorCodes } from '../core/error-codes';
import { mediaDirOf } from '../simulator/state-file';
import type { WorkerConfig } from './config';
import type { Cleanups } from './cleanups';
import type { Log, ResumeInfo } from './run-types';
import { noteFreshPaths } from './start-leftovers';

/** Another worker holds the data dir (its `amsflow.pid`). */
export class DataDirInUseError extends AmsflowError {
  readonly code = AmsflowErrorCodes.dataDirInUse;
  constructor(
    readonly file: string,
    readonly pid: number,
  ) {
    super(
      `Another amsflow (pid ${pid}) is using the data in ${join(file, '..')}: stop it first (two runs ` +
        'must not share one conversation and one Temporal database), or set AMSFLOW_DATA_DIR to another ' +
        `folder. If no amsflow is running, delete ${file}.`,
    );
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid in a lock file, when it is a live process other than this one. */
function liveHolder(file: string): number | undefined {
  let holder = NaN;
  try {
    holder = Number(readFileSync(file, 'utf8').trim());
  } catch {
    // Removed meanwhile, or unreadable: treated as stale.
  }
  return Number.isInteger(holder) && holder > 0 && holder !== process.pid && alive(holder)
    ? holder
    : undefined;
}

/** Takes `<dataDir>/amsflow.pid`; returns its release. Throws {@link DataDirInUseError}. */
export function lockDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR });
  const file = join(dataDir, 'amsflow.pid');
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        try {
          if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
        } catch {
          // Gone already.
        }
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) throw err;
    }
    const holder = liveHolder(file);
    if (holder !== undefined) throw new DataDirInUseError(file, holder);
    // Left by a run that was killed: take it over.
    rmSync(file, { force: true });
  }
}

/** The embedded server's database and the files SQLite keeps beside it. */
const DB_SUFFIXES = ['', '-wal', '-shm', '-journal'];

const removeDb = (file: string) => {
  for (const suffix of DB_SUFFIXES) rmSync(`${file}${suffix}`, { force: true });
};

/** Modes of what the data dir holds: its user's alone. */
const PRIVATE_DIR = 0o700;
const PRIVATE_FILE = 0o600;

/** What {@link makeDataPrivate} did: each path it changed (with its old mode), each it could not. */
export interface PrivacyFixes {
  changed: string[];
  failed: string[];
}

/**
 * Makes the data dir's folders (0700) and the embedded server's database files (0600) readable by
 * their user only. New ones are made so (the lock's folder, the dev server's umask); this is for
 * those an earlier amsflow left open (0755, 0644), which SQLite would also copy to every new
 * write-ahead log. A folder with the sticky bit (`/tmp` as the data dir) is shared by design and
 * left alone. Paths that do not exist are skipped.
 */
export function makeDataPrivate(dirs: (string | undefined)[], dbFile: string | undefined): PrivacyFixes {
  const fixes: PrivacyFixes = { changed: [], failed: [] };
  const fix = (path: string, mode: number, isDir: boolean) => {
    let current: number;
    try {
      const stat = statSync(path);
      if (stat.isDirectory() !== isDir || (isDir && stat.mode & 0o1000)) return;
      current = stat.mode & 0o777;
    } catch {
      return; // Not there (yet).
    }
    if ((current & 0o077) === 0) return;
    try {
      chmodSync(path, current & mode);
      fixes.changed.push(`${path} (was ${current.toString(8).padStart(4, '0')})`);
    } catch (err) {
      fixes.failed.push(`${path} (${(err as NodeJS.ErrnoException).code ?? String(err)})`);
    }
  };
  for (const dir of dirs) if (dir) fix(dir, PRIVATE_DIR, true);
  if (dbFile) for (const suffix of DB_SUFFIXES) fix(`${dbFile}${suffix}`, PRIVATE_FILE, false);
  return fixes;
}

/** The start's line about {@link makeDataPrivate}: only when it had something to say. */
function reportPrivacy(fixes: PrivacyFixes, log: Log): void {
  if (fixes.changed.length > 0) {
    log(`amsflow: made readable by their user only (they hold the chats): ${fixes.changed.join(', ')}`);
  }
  if (fixes.failed.length > 0) {
    log(
      `amsflow: WARNING: could not make these readable by their user only: ${fixes.failed.join(', ')}; ` +
        'other users of this machine may read the chats: fix their owner or mode (chmod go-rwx)',
    );
  }
}

/** Where this start keeps its data, and what it found there. */
export interface DataDirPlan {
  resume: ResumeInfo;
  /** The embedded simulator's state file (with the embedded simulator). */
  stateFile?: string;
}

/**
 * Locks the data dir when the embedded parts use it, and says where they keep their data. A demo
 * whose conversation is gone starts its Temporal data afresh too. `leftovers` gets the removal of
 * what this start creates there, for a start that fails.
 */
export function prepareDataDir(
  config: WorkerConfig,
  log: Log,
  cleanups: Cleanups,
  leftovers: (() => void)[],
): DataDirPlan {
  if (!config.temporalAddress || config.embeddedSimulator) {
    leftovers.push(noteFreshPaths([config.dataDir]));
    cleanups.push(lockDataDir(config.dataDir));
  }
  const demoDir = config.embeddedSimulator ? join(config.dataDir, 'demo') : undefined;
  const stateFile = demoDir && join(demoDir, 'simulator.json');
  const temporalDb = config.temporalAddress ? undefined : join(demoDir ?? config.dataDir, 'temporal.db');
  if (temporalDb && stateFile && !existsSync(stateFile) && existsSync(temporalDb)) {
    // Agent workflows hold offsets into a conversation that is gone: they must not resume.
    log(`amsflow: no conversation in ${stateFile}, so the demo's Temporal data start afresh too`);
    removeDb(temporalDb);
  }
  leftovers.push(noteFreshPaths([demoDir, stateFile, stateFile && mediaDirOf(stateFile), temporalDb]));
  if (!config.temporalAddress || config.embeddedSimulator) {
    const media = stateFile && mediaDirOf(stateFile);
    reportPrivacy(makeDataPrivate([config.dataDir, demoDir, media], temporalDb), log);
  }
  const resume: ResumeInfo = {
    dataDir: config.dataDir,
    demoDir,
    temporalDb,
    temporalResumed: temporalDb !== undefined && existsSync(temporalDb),
  };
  return { resume, stateFile };
}
