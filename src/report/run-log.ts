import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pino } from 'pino';
import type { RunEvents, RunEventMap } from '../run/run-events.js';
import type { StateFiles } from '../state/index.js';
import { stateWord, wordCountsOf } from '../state/vocabulary.js';
import { createLogger, type Logger } from '../util/logger.js';
import { stoppingWords } from './progress/lines.js';

/** The state every command uses by default: its runs' logs need no prefix. */
const DEFAULT_STATE = 'reelpipe';

/**
 * `state/logs/RUN-ID.ndjson` in the manifest's project (state/locate.ts stateFiles). Why a prefix
 * for any other state (`state/logs/sandbox-3.ndjson`): run ids count per state, and the sandbox's
 * state keeps its logs in the same folder as the real one's — run 3 of each must not share a file.
 * On a state several hosts share, `RUN-ID-HOST.ndjson` (`host` the run's): each member of a run
 * writes its own log on its host, and the name says whose it is wherever the file is copied.
 */
export function runLogPath(files: StateFiles, runId: number, host: string): string {
  const prefix = files.name === DEFAULT_STATE ? '' : `${files.name}-`;
  const suffix = files.shared ? `-${host.replace(/[^A-Za-z0-9._-]/g, '_')}` : '';
  return join(files.folder, 'logs', `${prefix}${runId}${suffix}.ndjson`);
}

/**
 * What a run's log records unless REELPIPE_LOG_LEVEL says otherwise. Why debug: the file is where
 * a failed night is read the next morning, so it keeps every request (method, path, status,
 * duration); stderr stays for people and never carries these lines.
 */
export const RUN_LOG_LEVEL = 'debug';

export interface RunLog {
  file: string;
  logger: Logger;
  /** Stops recording the run's events and closes the file. */
  close(): void;
}

export interface RunLogOptions {
  /** Where the state's runs keep their files. */
  files: StateFiles;
  runId: number;
  /** This host's name (util/host-name.ts), in the log's name on a shared state. */
  host: string;
  /** For REELPIPE_LOG_LEVEL and the credentials to redact. */
  env: NodeJS.ProcessEnv;
  /** The run's events, each recorded as a line. */
  events: RunEvents;
  /** A job's label, once the plan is known. */
  labelOf: (key: string) => string | undefined;
  /** reelpipe's version, on the first line. */
  version: string;
}

/**
 * Opens the run's NDJSON log (pino) and records the run's events in it: every line carries the
 * run id, and a line about a job its key and label — from the event itself, or, for the client's
 * request lines, from the call made for the job (CallOptions.log, see run-context.ts callFor). Credentials are
 * redacted from every line, as on any reelpipe logger. A file left under the same name (a
 * database replaced since) is moved aside, never appended to or overwritten.
 */
export function openRunLog(options: RunLogOptions): RunLog {
  const file = runLogPath(options.files, options.runId, options.host);
  mkdirSync(dirname(file), { recursive: true });
  if (existsSync(file)) renameSync(file, `${file.slice(0, -'.ndjson'.length)}.replaced-${Date.now()}.ndjson`);
  // Synchronous writes: a run killed at any point keeps every line it wrote (the page cache outlives it).
  const sink = pino.destination({ dest: file, sync: true });
  const destination = faultTolerant(sink, (error) =>
    options.events.emit('run:note', { message: `the run's log ${file} could not be written (${error.message}); the run goes on without it` }),
  );
  const logger = createLogger({ env: options.env, destination, bindings: { runId: options.runId }, defaultLevel: RUN_LOG_LEVEL });
  const stop = recordEvents(options.events, logger, options.labelOf, options.version);
  return {
    file,
    logger,
    close: () => {
      stop();
      destination.end();
    },
  };
}

/**
 * The log file as pino writes to it, never throwing. Why: a write refused (a full disk, ENOSPC)
 * would throw out of whatever event or request was being logged — a job's read, the run's end —
 * and turn a local fault into a crash or a failed job. The log is not the record (the state
 * database is): the first refused write is said once through `onFault`, and later lines are dropped.
 */
function faultTolerant(sink: ReturnType<typeof pino.destination>, onFault: (error: Error) => void): { write(line: string): boolean; end(): void } {
  let broken = false;
  const fail = (error: Error) => {
    if (broken) return;
    broken = true;
    onFault(error);
  };
  sink.on('error', fail);
  return {
    write: (line) => {
      if (broken) return true;
      try {
        return sink.write(line);
      } catch (error) {
        fail(error as Error);
        return true;
      }
    },
    end: () => {
      try {
        sink.end();
      } catch {
        // Nothing more can be written; what was written is kept.
      }
    },
  };
}

type Listeners = { [E in keyof RunEventMap]: (payload: RunEventMap[E]) => void };

/** Writes each run event as a log line; returns the function that stops. */
function recordEvents(events: RunEvents, logger: Logger, labelOf: (key: string) => string | undefined, version: string): () => void {
  const job = (key: string, step: string) => ({ key, label: labelOf(key) ?? null, step });
  const listeners: Listeners = {
    // The run id is on every line already (the logger's bindings).
    'run:started': ({ runId: _, ...e }) => logger.info({ ...e, version, pid: process.pid }, 'run started'),
    'job:status': (e) => {
      const attention = e.status === 'failed' || e.status === 'rejected' || e.status === 'in_doubt';
      const line = { ...job(e.key, e.step), kind: e.kind, dbStatus: e.status, remoteId: e.remoteId ?? null, detail: e.detail, creditsUsed: e.creditsUsed };
      logger[attention ? 'warn' : 'info'](line, stateWord(e.status));
    },
    'job:download-failed': (e) => logger.warn({ ...job(e.key, e.step), error: e.message }, 'download failed'),
    'job:read-failed': (e) => logger.warn({ ...job(e.key, e.step), error: e.message, giveUp: e.giveUp }, e.giveUp ? 'read given up' : 'read failed'),
    'run:stopping': (e) => logger.warn({ reason: e.reason }, stoppingWords(e)),
    'run:note': (e) => logger.info(e.message),
    // The jobs found at start are one line, from the counts that follow the pages.
    'run:jobs-page': () => undefined,
    'run:jobs': (e) => {
      const counts = { ...e.counts, planned: e.planned + (e.counts.planned ?? 0) };
      logger.info({ jobs: Object.values(counts).reduce((sum, n) => sum + n, 0), states: wordCountsOf(counts) }, 'jobs at start');
    },
    'run:finished': (e) => logger[e.outcome === 'OK' ? 'info' : 'warn']({ outcome: e.outcome }, 'run finished'),
  };
  const names = Object.keys(listeners) as (keyof RunEventMap)[];
  for (const name of names) events.on(name, listeners[name] as never);
  return () => {
    for (const name of names) events.off(name, listeners[name] as never);
  };
}
