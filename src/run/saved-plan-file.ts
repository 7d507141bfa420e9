import { createReadStream, statSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { InvalidInputError, UsageError } from '../errors.js';
import { fingerprintOf, parsePlanLines, planJobDifferences, PlanFileProblem, type Plan, type SavedPlan } from '../plan/index.js';
import type { Manifest } from '../manifest/types.js';
import type { RunEvents } from './run-events.js';

/** The largest plan file read. Why: a 1,000,000-job plan is about 250 MB; anything larger is not one of ours. */
const MAX_PLAN_BYTES = 512 * 1024 * 1024;

/** Reads a saved plan (plan/saved-plan.ts) a line at a time; a file that is not a whole plan is a usage error naming it. */
export async function readSavedPlan(file: string): Promise<SavedPlan> {
  let size: number;
  try {
    size = statSync(file).size;
  } catch (error) {
    throw new UsageError(`--plan ${file}: cannot read it (${(error as Error).message}); write one with \`reelpipe plan MANIFEST --out ${file}\``);
  }
  if (size > MAX_PLAN_BYTES) throw new UsageError(`--plan ${file}: ${size} bytes, larger than any plan (at most ${MAX_PLAN_BYTES} bytes)`);
  const lines: string[] = [];
  for await (const line of createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity })) lines.push(line);
  try {
    return parsePlanLines(lines, file);
  } catch (error) {
    if (error instanceof PlanFileProblem) throw new UsageError(`--plan ${error.message}`);
    throw error;
  }
}

/**
 * `run --plan FILE`: the plan the manifest yields now must be the one saved, or the run is refused
 * (exit 2, nothing sent), naming the jobs that differ. A job the saved plan was to create that a run
 * of it has since sent or finished counts as unchanged, so running the plan again resumes it. Why
 * the jobs, not the fingerprint, decide: the plan approved is the jobs it makes and pays for; a
 * manifest edited without changing them (a comment, a hook) still yields it, and is said.
 */
export function checkSavedPlan(saved: SavedPlan, file: string, manifest: Manifest, plan: Plan, statusOf: (key: string) => string | undefined, progress: RunEvents): void {
  if (saved.manifest !== plan.manifestPath) {
    throw new UsageError(`--plan ${file} is a plan of ${saved.manifest}, not of ${plan.manifestPath}`);
  }
  const toSend = (key: string) => {
    const status = statusOf(key);
    return status === undefined || status === 'planned' ? 'create' : 'keep';
  };
  const differences = planJobDifferences(saved, plan, toSend);
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
