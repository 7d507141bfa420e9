import { UsageError } from '../../errors.js';
import { findJob } from '../../plan/job-index.js';
import type { Plan } from '../../plan/types.js';
import type { JobRow } from '../../state/index.js';
import { stateWord } from '../../state/vocabulary.js';
import { formatCredits } from '../../util/format.js';
import type { CliIo } from '../io.js';
import { addStateFlags, locateManifestState, type StateFlags } from '../state-flags.js';
import { manifestTarget } from './target.js';
import type { RegisterCommand } from './index.js';

/**
 * `reelpipe forget MANIFEST JOB`: drops one job's record (by key or label) from the state
 * database, so the next run plans it again as new — and pays for it again. Refused (exit 2) while
 * the job is being submitted, at the service, or in doubt (state/sqlite/forget-job.ts says why); refused
 * (exit 75) while a run holds the manifest's lock. Its files on disk, its events and its charges
 * (what it cost: state/sqlite/charges.ts) are kept.
 */
export const registerForget: RegisterCommand = (program, io) => {
  addStateFlags(
    program
      .command('forget')
      .description("drop a job's record, so the next run makes it (and pays for it) again")
      .argument('<manifest>', 'the manifest YAML file')
      .argument('<job>', "the job's key or label, as `reelpipe status` shows it"),
  ).action(async (file: string, job: string, flags: StateFlags) => {
    const { manifestId, statePath } = await locateManifestState(file, io, flags);
    const [{ existsSync }, state] = await Promise.all([import('node:fs'), import('../../state/index.js')]);
    if (!state.isPostgresAddress(statePath) && !existsSync(statePath)) throw new UsageError(`${job}: the state database ${statePath} does not exist, so it records no job to forget`);
    const plan = await planOf(file, io, flags);
    const store = (await state.openStore(statePath)).useManifest(manifestId);
    try {
      const named = await store.job(job);
      const key = keyOf(job, plan, () => named !== undefined);
      // Held while the rows go, so no run of this manifest is working on the job meanwhile.
      const lock = await state.acquireLock(store, { name: manifestId });
      try {
        const result = await store.forget(key, { ...state.whoAmI(), command: 'forget' });
        if (!result) throw new UsageError(`${job}: ${statePath} records no job ${key} of ${manifestId}`);
        if ('refused' in result) throw new UsageError(refusedText(job, result.refused, file));
        io.stdout(forgottenText(job, result.forgotten, plan));
      } finally {
        await lock.release();
      }
    } finally {
      await store.close();
    }
  });
};

/** The manifest's plan, for labels and the price of doing the job again; undefined when it no longer loads (keys still work). */
async function planOf(file: string, io: CliIo, flags: StateFlags): Promise<Plan | undefined> {
  try {
    return (await manifestTarget(io, file, flags)).plan;
  } catch {
    return undefined;
  }
}

/** A key the database knows, or a label (or key) of the plan. */
function keyOf(job: string, plan: Plan | undefined, recorded: (key: string) => boolean): string {
  if (recorded(job)) return job;
  const planned = plan && findJob(plan.jobs, (j) => j.label === job || j.key === job);
  if (planned) return planned.key;
  const how = plan ? 'a key or a label of this manifest' : 'a key (the manifest does not load, so labels cannot be read)';
  throw new UsageError(`${job}: no such job; give ${how}, as \`reelpipe status\` shows them`);
}

function refusedText(job: string, row: JobRow, file: string): string {
  const at = row.remoteId ? ` (remote id ${row.remoteId})` : '';
  const next = row.status === 'in_doubt'
    ? `settle it first: \`reelpipe doubt ${file}\`, then \`reelpipe resolve\``
    : `let a run finish it: \`reelpipe run ${file}\``;
  return `${job} is ${stateWord(row.status)}${at}: it exists at the service (or may), and forgetting it would lose track of a job that is paid for; ${next}`;
}

function forgottenText(job: string, row: JobRow, plan: Plan | undefined): string {
  const spent = (row.creditsUsed ?? 0) + row.creditsPrior;
  const planned = plan && findJob(plan.jobs, (j) => j.key === row.key);
  const estimate = planned?.credits?.expected;
  const again = estimate === undefined ? 'at its price' : `about ${formatCredits(estimate)} credits`;
  // In the words every view uses (docs/report.md#states): the database's `downloaded` is `done`.
  return [
    `forgot ${planned?.label ?? job} (${row.key}): it was ${stateWord(row.status)}${row.remoteId ? `, remote id ${row.remoteId}` : ''}${spent > 0 ? `, ${formatCredits(spent)} credits used` : ''}`,
    `the next run plans it again as new and submits it: it will be paid for again (${again})`,
    // Why say it: what was paid stays paid; its charges are kept and every total counts them.
    ...(spent > 0 ? [`its ${formatCredits(spent)} credits stay counted in every total and against budget.max_credits, as spent on a forgotten job`] : []),
    'its files on disk are left as they are; its history stays in the event log (job:forgotten)',
    '',
  ].join('\n');
}
