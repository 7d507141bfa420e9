import { plural } from '../util/format.js';
import { jobIndex, type JobIndex } from './job-index.js';
import type { PlanAction } from './plan-actions.js';
import { digestOf, PLAN_FORMAT, type PlanFingerprint, type SavedPlan } from './saved-plan.js';
import type { PlanIndex } from './plan-index.js';
import type { Plan, PlannedJob } from './types.js';

/** A plan file that cannot be used as one: the message says where and why. */
export class PlanFileProblem extends Error {}

/** A saved plan's first line (the first that is not blank, the file's `n`th): what it is a plan of. */
export function savedPlanHeader(line: string, file: string, n: number): SavedPlan {
  const value = jsonLine(line, file, n);
  if (value.reelpipe !== 'plan' || value.format !== PLAN_FORMAT) throw new PlanFileProblem(`${file}:${n}: not a reelpipe plan of format ${PLAN_FORMAT} (write one with \`reelpipe plan MANIFEST --out FILE\`)`);
  return {
    line, manifest: String(value.manifest), name: String(value.name), createdAt: String(value.createdAt),
    fingerprint: value.fingerprint as PlanFingerprint, steps: value.steps as string[], jobs: Number(value.jobs),
  };
}

/** A plan file that ends before its closing line (`lines` read). */
export const cutShort = (file: string, lines: number): PlanFileProblem =>
  new PlanFileProblem(`${file}: the plan is cut short (${plural(lines, 'line')}, no closing line): write it again with \`reelpipe plan MANIFEST --out FILE\``);

/** What a job's line said of it, by the plan's place: not in the file, to be created (or re-created), to be left alone. */
const UNSEEN = 0;
const SENT = 1;
const KEPT = 2;

/**
 * Checks a saved plan's lines, fed as they are read, against the plan the manifest yields now
 * (`reelpipe run MANIFEST --plan FILE`). Why fed, not read whole: a 1,000,000-job plan file is
 * about 250 MB; what is kept here is a byte per job of the plan (what its line said) and the first
 * `max` jobs no longer yielded. The file must be whole and untouched (its closing line's count and
 * digest), its first line the one read before planning (`header`, whose steps were planned): else
 * PlanFileProblem, naming the line. `differences()` then says why the plan no longer yields it,
 * one line a job (at most `max`): a job the saved plan did not have, one it had that is gone, or
 * one it was to leave alone that would now be created (its record is gone: running would pay for
 * it). A job it was to create that a run has since sent or finished is the same: running the plan
 * again resumes it.
 */
export class SavedPlanCheck {
  private readonly said: Uint8Array;
  private readonly places: JobIndex<PlannedJob>;
  private readonly gone: string[] = [];
  private goneCount = 0;
  private digest = '';
  private lines = 0;
  private jobs = 0;
  private started = false;
  private ended = false;

  constructor(
    private readonly file: string,
    private readonly header: SavedPlan,
    private readonly plan: Pick<Plan, 'jobs'> & { index?: PlanIndex },
    private readonly max = 20,
  ) {
    this.said = new Uint8Array(plan.jobs.length);
    this.places = jobIndex(plan);
  }

  /** The file's next line (without its line break). */
  line(raw: string): void {
    const n = ++this.lines;
    if (raw.trim() === '') return;
    if (this.ended) throw new PlanFileProblem(`${this.file}:${n}: text after the plan's last line`);
    if (!this.started) {
      this.started = true;
      // The steps run were chosen from the first line as first read: a file changed since is not the plan approved.
      if (raw !== this.header.line) throw new PlanFileProblem(`${this.file}:${n}: the plan's first line changed while it was being read`);
      return;
    }
    const value = jsonLine(raw, this.file, n);
    if (value.end === true) {
      if (value.jobs !== this.jobs || value.digest !== this.digest) throw this.altered(n);
      this.ended = true;
      return;
    }
    this.digest = digestOf(this.digest + raw);
    this.jobs++;
    const key = String(value.key);
    const place = this.places.ordinal(key);
    if (place === undefined) {
      if (++this.goneCount <= this.max) this.gone.push(`- ${String(value.label)} (${key}): in the saved plan, no longer yielded by the manifest`);
      return;
    }
    // A key twice: not a file `plan --out` writes (the plan's keys are unique).
    if (this.said[place] !== UNSEEN) throw this.altered(n);
    this.said[place] = (value.action as PlanAction) === 'keep' ? KEPT : SENT;
  }

  /** After the last line: why the plan no longer yields the saved one (none: it does); PlanFileProblem for a file cut short. */
  differences(actionNow: (key: string) => PlanAction): string[] {
    if (!this.started || !this.ended) throw cutShort(this.file, this.lines);
    const added: string[] = [];
    let count = this.goneCount;
    let place = 0;
    for (const job of this.plan.jobs) {
      const said = this.said[place++];
      const why = said === UNSEEN ? 'not in the saved plan' : said === KEPT && actionNow(job.key) !== 'keep' ? 'the plan left it alone, but it would now be sent (and paid for) again' : null;
      if (why === null) continue;
      count++;
      if (added.length < this.max) added.push(`+ ${job.label} (${job.key}): ${why}`);
    }
    // The plan's jobs first, in its order, then the saved plan's jobs no longer yielded, in the file's.
    const shown = [...added, ...this.gone].slice(0, this.max);
    return count > this.max ? [...shown, `… and ${count - this.max} more`] : shown;
  }

  private altered(n: number): PlanFileProblem {
    return new PlanFileProblem(`${this.file}:${n}: the plan's jobs were changed after it was written (its closing line does not match them)`);
  }
}

function jsonLine(raw: string, file: string, n: number): Record<string, unknown> {
  try {
    const value = JSON.parse(raw) as unknown;
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // said below
  }
  throw new PlanFileProblem(`${file}:${n}: not a line of a reelpipe plan (not a JSON object)`);
}
