import type { PlannedJob } from './types.js';

/**
 * File stems for outputs. A step's `name:` template gives them; otherwise the job key does
 * (`shorts-3f9a1c2b7d4e`), so a name never depends on row order. Names are made safe for every
 * file system, and names two jobs would share get the key's hash appended (with a warning)
 * rather than overwrite each other.
 */
const MAX_STEM = 120;

const SAFE = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

export function sanitiseStem(text: string): string {
  if (text.length <= MAX_STEM && SAFE.test(text) && !text.endsWith('.') && !text.endsWith('-')) return text;
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, MAX_STEM);
}

const fromKey = (key: string) => key.replace(':', '-').replace('~', '-');

/** Fills in every job's outputName; returns warnings about names that collided. */
export function outputNames(jobs: PlannedJob[]): string[] {
  for (const job of jobs) job.outputName = sanitiseStem(job.outputName) || fromKey(job.key);
  const byName = new Map<string, PlannedJob[]>();
  for (const job of jobs) {
    const sharing = byName.get(job.outputName);
    if (sharing) sharing.push(job);
    else byName.set(job.outputName, [job]);
  }
  const warnings: string[] = [];
  for (const [name, sharing] of byName) {
    if (sharing.length < 2) continue;
    for (const job of sharing) job.outputName = `${name}-${fromKey(job.key).slice(job.step.length + 1)}`;
    warnings.push(`${sharing.length} jobs would write ${name}: each gets its key appended (make name: unique per job)`);
  }
  return warnings;
}
