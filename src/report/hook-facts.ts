import { stateAt, type HookRunRow } from '../state/index.js';

/** One hook run as `status` and the report show it: the state database's record (src/state/sqlite/hook-runs.ts). */
export type HookFacts = HookRunRow;

/** Each job's newest output-hook run per file, and the manifest's newest on_finish: read-only, no lock. */
export async function readHookFacts(dbPath: string, manifest: string): Promise<{ byJob: Map<string, HookFacts[]>; onFinish: HookFacts | null }> {
  const { byJob, lastFinish } = await stateAt(dbPath).hookRuns(manifest);
  return { byJob, onFinish: lastFinish };
}

/** `ok, exit 0 in 0.2 s`; `failed, exit 3 in 1.0 s`; `failed, stopped after its timeout of 5 s`. */
export function hookOutcomeText(h: Pick<HookFacts, 'state' | 'exitCode' | 'error' | 'durationMs' | 'signal'>): string {
  if (h.state === 'running') return 'running (or cut off, if no run is going: the next run runs it again)';
  const how = h.error ?? (h.exitCode === null ? (h.signal ? `ended by ${h.signal}` : 'no exit code') : `exit ${h.exitCode}`);
  const took = h.durationMs === null ? '' : ` in ${(h.durationMs / 1000).toFixed(1)} s`;
  const state = h.state === 'retried' ? 'failed, to be run again (retry --hooks)' : h.state;
  return `${state}, ${how}${took}`;
}
