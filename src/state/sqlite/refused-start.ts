import { existsSync } from 'node:fs';
import type { Clock } from '../../util/clock.js';
import { StateStore } from './job-store.js';

/** A start refused before the run opened its state database: whose, where from, and why. */
export interface RefusedStart {
  /** The manifest's identity (`project/name`: manifest/identity.ts), as its runs are recorded. */
  manifest: string;
  /** The file it was started from (its real path). */
  from?: string;
  host: string;
  pid: number;
  /** The error's code, as a run's outcome is recorded. */
  outcome: string;
  /** The first line of its message, credentials redacted. */
  refusal: string;
}

/**
 * Records a start refused before its run opened the state database (a manifest or data file that
 * does not validate, the budget gate): a run that ended as it began, marked refused. Only into a
 * database that already exists. Why: a database made just to say a manifest was refused would
 * hold nothing else, and is the wrong one whenever the path or `--state` was mistyped; a manifest
 * with no database has no runs to list beside the refusal. Returns whether it was recorded.
 */
export function recordRefusedStart(statePath: string, start: RefusedStart, clock: Clock): boolean {
  if (!existsSync(statePath)) return false;
  const store = StateStore.open(statePath, clock).useManifest(start.manifest);
  try {
    store.startRun(start.manifest, start.host, start.pid, null, start.from ?? null);
    store.finishRun(start.outcome, {}, start.refusal);
    return true;
  } finally {
    store.close();
  }
}
