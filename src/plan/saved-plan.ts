import { createHash, hash } from 'node:crypto';
import type { Manifest } from '../manifest/types.js';
import type { RowSet } from '../manifest/read/rows.js';
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
 * jobs the manifest no longer yields (saved-plan-check.ts), whatever the fingerprint says.
 */
export const PLAN_FORMAT = 1;

export interface PlanFingerprint {
  manifest: string;
  /** Each step with rows: the hash of its rows, as read. */
  data: Record<string, string>;
}

/** A saved plan's first line: what it is a plan of, and how many jobs its lines hold. */
export interface SavedPlan {
  /** The line itself, as read. */
  line: string;
  manifest: string;
  name: string;
  createdAt: string;
  fingerprint: PlanFingerprint;
  /** The steps planned (all of the manifest's, or a `--step` selection's). */
  steps: string[];
  jobs: number;
}

export const digestOf = (text: string): string => hash('sha256', text).slice(0, 16);

/** The manifest's fingerprint: what it says (parsed) and each step's rows. Pure. */
export function fingerprintOf(manifest: Manifest): PlanFingerprint {
  const data: Record<string, string> = {};
  for (const step of manifest.steps) if (step.rows) data[step.id] = rowsDigest(step.rows);
  return { manifest: digestOf(canonicalJson(manifest.source.data)), data };
}

/** digestOf(canonicalJson(every row as a list)), hashed a row at a time: the rows are never one string. */
function rowsDigest(rows: RowSet): string {
  const digest = createHash('sha256').update('[');
  for (let i = 0; i < rows.count; i++) digest.update(`${i > 0 ? ',' : ''}${canonicalJson(rows.row(i))}`);
  return digest.update(']').digest('hex').slice(0, 16);
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

