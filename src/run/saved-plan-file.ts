import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { InvalidInputError, UsageError } from '../errors.js';
import { cutShort, fingerprintOf, PlanFileProblem, SavedPlanCheck, savedPlanHeader, type Plan, type SavedPlan } from '../plan/index.js';
import type { Manifest } from '../manifest/types.js';
import type { RunEvents } from './run-events.js';

/** The largest plan file read. Why: a 1,000,000-job plan is about 250 MB; anything larger is not one of ours. */
const MAX_PLAN_BYTES = 512 * 1024 * 1024;

/** A saved plan's lines, one at a time, as read from the file: never the whole file at once. */
async function* linesOf(file: string): AsyncGenerator<string> {
  const input = createReadStream(file, 'utf8');
  try {
    yield* createInterface({ input, crlfDelay: Infinity });
  } finally {
    input.destroy();
  }
}

/** A file there to read, of no more bytes than a plan has; read again before its jobs are (it may have changed). */
function assertPlanSize(file: string): void {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new UsageError(`--plan ${file}: cannot read it (${(error as Error).message}); write one with \`reelpipe plan MANIFEST --out ${file}\``);
  }
  if (size > MAX_PLAN_BYTES) throw new UsageError(`--plan ${file}: ${size} bytes, larger than any plan (at most ${MAX_PLAN_BYTES} bytes)`);
}

/** A plan file's problem as the usage error `run --plan` exits with (2). */
function asUsage(error: unknown): unknown {
  return error instanceof PlanFileProblem ? new UsageError(`--plan ${error.message}`) : error;
}

/**
 * Reads a saved plan's first line (plan/saved-plan.ts): what it is a plan of and its steps, which
 * choose what the run plans. Its jobs are read after planning, a line at a time (checkSavedPlan).
 * A file that is not a plan is a usage error naming it.
 */
export async function readSavedPlan(file: string): Promise<SavedPlan> {
  assertPlanSize(file);
  let n = 0;
  try {
    for await (const line of linesOf(file)) {
      n++;
      if (line.trim() !== '') return savedPlanHeader(line, file, n);
    }
  } catch (error) {
    throw asUsage(error);
  }
  throw asUsage(cutShort(file, n));
}

/**
 * `run --plan FILE`: the plan the manifest yields now must be the one saved, or the run is refused
 * (exit 2, nothing sent), naming the jobs that differ. A job the saved plan was to create that a run
 * of it has since sent or finished counts as unchanged, so running the plan again resumes it. Why
 * the jobs, not the fingerprint, decide: the plan approved is the jobs it makes and pays for; a
 * manifest edited without changing them (a comment, a hook) still yields it, and is said.
 */
export async function checkSavedPlan(saved: SavedPlan, file: string, manifest: Manifest, plan: Plan, statusOf: (key: string) => string | undefined, progress: RunEvents): Promise<void> {
  if (saved.manifest !== plan.manifestPath) {
    throw new UsageError(`--plan ${file} is a plan of ${saved.manifest}, not of ${plan.manifestPath}`);
  }
  const toSend = (key: string) => {
    const status = statusOf(key);
    return status === undefined || status === 'planned' ? 'create' : 'keep';
  };
  assertPlanSize(file);
  const check = new SavedPlanCheck(file, saved, plan);
  let differences: string[];
  try {
    for await (const line of linesOf(file)) check.line(line);
    differences = check.differences(toSend);
  } catch (error) {
    throw asUsage(error);
  }
  if (differences.length > 0) {
    throw new InvalidInputError(
      differences.map((message) => ({ file, message })),
      `${plan.name}: the manifest and its data no longer yield the plan saved in ${file} on ${saved.createdAt}; nothing was sent. Review a new one: \`reelpipe plan ${manifest.displayFile} --out ${file}\``,
    );
  }
  const now = fingerprintOf(manifest);
  if (JSON.stringify(now) !== JSON.stringify(saved.fingerprint)) {
    progress.emit('run:note', { message: `the manifest or its data changed since ${file} was saved, but yield the same jobs: running the saved plan` });
  }
}
