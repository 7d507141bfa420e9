import { hash } from 'node:crypto';
import type { Manifest } from '../manifest/types.js';
import { plural } from '../util/format.js';
import { canonicalJson } from './job-key.js';
import type { PlanAction } from './plan-actions.js';
import type { Plan } from './types.js';

/**
 * A saved plan (`reelpipe plan MANIFEST --out FILE`), run as it was read and approved (`reelpipe run
 * MANIFEST --plan FILE`), as Terraform applies a saved plan. NDJSON, written and read a line at a
 * time (a 100,000-job plan is never one string):
 *
 *   {"reelpipe":"plan","format":1,"manifest":…,"name":…,"createdAt":…,"fingerprint":{…},"steps":[…],"jobs":N}
 *   {"key":…,"label":…,"step":…,"action":"create"|"recreate"|"keep","credits":{low,expected,high}|null,"was":KEY?}   one a job
 *   {"end":true,"jobs":N,"digest":…}    the last line: a file cut short is refused
 *
 * The fingerprint hashes the manifest as parsed and each step's rows (its data file as read), so a
 * changed manifest or data file is told apart from an unchanged one; the run refuses a plan whose
 * jobs the manifest no longer yields (planJobDifferences), whatever the fingerprint says.
 */
export const PLAN_FORMAT = 1;

export interface PlanFingerprint {
  manifest: string;
  /** Each step with rows: the hash of its rows, as read. */
  data: Record<string, string>;
}

export interface SavedJob {
  key: string;
  label: string;
  step: string;
  action: PlanAction;
}

export interface SavedPlan {
  manifest: string;
  name: string;
  createdAt: string;
  fingerprint: PlanFingerprint;
  /** The steps planned (all of the manifest's, or a `--step` selection's). */
  steps: string[];
  jobs: Map<string, SavedJob>;
}

const digestOf = (text: string) => hash('sha256', text).slice(0, 16);

/** The manifest's fingerprint: what it says (parsed) and each step's rows. Pure. */
export function fingerprintOf(manifest: Manifest): PlanFingerprint {
  const data: Record<string, string> = {};
  for (const step of manifest.steps) if (step.rows) data[step.id] = digestOf(canonicalJson(step.rows.rows));
  return { manifest: digestOf(canonicalJson(manifest.source.data)), data };
}

/** The plan file's lines, each ending in a newline, one job at a time. */
export function* planFileLines(plan: Plan, fingerprint: PlanFingerprint, actionOf: (key: string) => PlanAction, wasOf: (key: string) => string | undefined, createdAt: string): Generator<string> {
  yield `${JSON.stringify({ reelpipe: 'plan', format: PLAN_FORMAT, manifest: plan.manifestPath, name: plan.name, createdAt, fingerprint, steps: plan.steps.map((s) => s.id), jobs: plan.jobs.length })}\n`;
  let digest = '';
  for (const job of plan.jobs) {
    const was = wasOf(job.key);
    const line = JSON.stringify({ key: job.key, label: job.label, step: job.step, action: actionOf(job.key), credits: job.credits && { low: job.credits.low, expected: job.credits.expected, high: job.credits.high }, ...(was ? { was } : {}) });
    digest = digestOf(digest + line);
    yield `${line}\n`;
  }
  yield `${JSON.stringify({ end: true, jobs: plan.jobs.length, digest })}\n`;
}

/** A plan file that cannot be used as one: the message says where and why. */
export class PlanFileProblem extends Error {}

/** Reads a plan file's lines (as they come); throws PlanFileProblem naming the line for anything but a whole, untouched plan. */
export function parsePlanLines(lines: Iterable<string>, file: string): SavedPlan {
  let saved: SavedPlan | undefined;
  let digest = '';
  let ended = false;
  let n = 0;
  for (const raw of lines) {
    n++;
    if (raw.trim() === '') continue;
    if (ended) throw new PlanFileProblem(`${file}:${n}: text after the plan's last line`);
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      throw new PlanFileProblem(`${file}:${n}: not a line of a reelpipe plan (not JSON)`);
    }
    if (!saved) {
      if (value.reelpipe !== 'plan' || value.format !== PLAN_FORMAT) throw new PlanFileProblem(`${file}:${n}: not a reelpipe plan of format ${PLAN_FORMAT} (write one with \`reelpipe plan MANIFEST --out FILE\`)`);
      saved = { manifest: String(value.manifest), name: String(value.name), createdAt: String(value.createdAt), fingerprint: value.fingerprint as PlanFingerprint, steps: value.steps as string[], jobs: new Map() };
    } else if (value.end === true) {
      if (value.jobs !== saved.jobs.size || value.digest !== digest) throw new PlanFileProblem(`${file}:${n}: the plan's jobs were changed after it was written (its closing line does not match them)`);
      ended = true;
    } else {
      digest = digestOf(digest + raw);
      saved.jobs.set(String(value.key), { key: String(value.key), label: String(value.label), step: String(value.step), action: value.action as PlanAction });
    }
  }
  if (!saved || !ended) throw new PlanFileProblem(`${file}: the plan is cut short (${plural(n, 'line')}, no closing line): write it again with \`reelpipe plan MANIFEST --out FILE\``);
  return saved;
}

/**
 * Why `plan` no longer yields `saved`, one line a job (at most `max`): a job the plan did not have,
 * one it had that is gone, or one it was to leave alone that would now be created (its record is
 * gone: running would pay for it). A job it was to create that a run has since sent or finished is
 * the same: running the plan again resumes it.
 */
export function planJobDifferences(saved: SavedPlan, plan: Plan, actionNow: (key: string) => PlanAction, max = 20): string[] {
  const out: string[] = [];
  for (const job of plan.jobs) {
    const then = saved.jobs.get(job.key);
    if (!then) out.push(`+ ${job.label} (${job.key}): not in the saved plan`);
    else if (then.action === 'keep' && actionNow(job.key) !== 'keep') out.push(`+ ${job.label} (${job.key}): the plan left it alone, but it would now be sent (and paid for) again`);
  }
  const now = new Set(plan.jobs.map((j) => j.key));
  for (const job of saved.jobs.values()) if (!now.has(job.key)) out.push(`- ${job.label} (${job.key}): in the saved plan, no longer yielded by the manifest`);
  return out.length > max ? [...out.slice(0, max), `… and ${out.length - max} more`] : out;
}
