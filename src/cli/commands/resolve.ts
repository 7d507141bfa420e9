import { resolve } from 'node:path';
import { UsageError } from '../../errors.js';
import type { ServiceClient } from '../../api/index.js';
import type { Plan, PlannedJob } from '../../plan/types.js';
import { DEFAULT_SANDBOX_SPEED } from '../../run/defaults.js';
import type { Decision } from '../../run/reconcile/resolve-doubt.js';
import type { JobRow, SandboxRuns, Store } from '../../state/index.js';
import { stateWord } from '../../state/vocabulary.js';
import { plural } from '../../util/format.js';
import { oneLine } from '../../util/one-line.js';
import type { CliIo } from '../io.js';
import type { RegisterCommand } from './index.js';
import { addStateFlags, sandboxRunsOf, type StateFlags } from '../state-flags.js';
import { jobNamed, manifestTarget } from './target.js';

interface ResolveFlags extends StateFlags {
  adopt?: string;
  absent?: boolean;
  from?: string;
}

/** The one decision the flags give for one job, or the file that gives many; anything else is a usage error. */
function decisionOf(name: string | undefined, flags: ResolveFlags): Decision | { from: string } {
  if (flags.from !== undefined) {
    if (name !== undefined || flags.adopt || flags.absent) throw new UsageError('--from FILE settles the jobs its lines name: give no JOB, --adopt or --absent with it');
    return { from: flags.from };
  }
  if (name === undefined) throw new UsageError('name the job in doubt (its key or label, see reelpipe doubt), or give --from FILE to settle many');
  if (Boolean(flags.adopt) === Boolean(flags.absent)) throw new UsageError('give one decision: --adopt REMOTE_ID (it exists) or --absent (it was never created)');
  return flags.adopt ? { adopt: flags.adopt } : { absent: true };
}

/**
 * What was recorded, in the vocabulary's words: for an adopt, the state the service showed
 * (`adopted 7d11… (failed: <reason>); …`) and what comes next.
 */
function settledText(job: PlannedJob, row: JobRow, decision: Decision, manifest: string): string {
  const named = `${job.label} (${job.key})`;
  if ('absent' in decision) return `${named}: recorded as never created; the next run submits it again (and pays for it)`;
  const word = stateWord(row.status);
  const adopted = `${named}: adopted ${decision.adopt}`;
  if (row.status === 'failed' || row.status === 'rejected') {
    return `${adopted} (${word}: ${oneLine(row.failedReason ?? 'no reason given')}); \`reelpipe retry ${manifest}\` resubmits it`;
  }
  if (row.status === 'done') return `${adopted} (${word}); the next run downloads its outputs, paying nothing more`;
  const remote = row.remoteStatus && row.remoteStatus !== word ? `, ${oneLine(row.remoteStatus)} at the service` : '';
  return `${adopted} (${word}${remote}); the next run tracks and downloads it, paying nothing more`;
}

/**
 * `reelpipe resolve MANIFEST JOB --adopt REMOTE_ID | --absent`, or `resolve MANIFEST --from FILE`:
 * the operator's decision on jobs in doubt (see src/run/reconcile/resolve-doubt.ts; many at once,
 * all or nothing: resolve-many.ts). Under the manifest's lock (underLock); an adopted id is
 * checked at the service first.
 */
export const registerResolve: RegisterCommand = (program, io) => {
  addStateFlags(
    program
      .command('resolve')
      .description('settle a job in doubt: --adopt the remote job that was found, or say it is --absent; many at once with --from FILE')
      .argument('<manifest>', 'the manifest YAML file')
      .argument('[job]', 'the job, by key or label (see reelpipe doubt)')
      .option('--adopt <remote-id>', 'the remote job the POST made (checked by a GET: kind, body, owner); recorded in the state the GET shows')
      .option('--absent', 'nothing was created: the next run submits the job (and pays for it)')
      .option('--from <file>', 'one decision a line, `JOB,REMOTE_ID` or `JOB,absent` (# comments); each checked as one resolve, all recorded or none'),
  ).action(async (file: string, name: string | undefined, flags: ResolveFlags) => {
    const asked = decisionOf(name, flags);
    const { plan, statePath } = await manifestTarget(io, file, flags);
    const [{ decidedBy, resolveDoubt }, { readDecisionFile }, { resolveMany }] = await Promise.all([
      import('../../run/reconcile/resolve-doubt.js'), import('../../run/reconcile/decision-file.js'), import('../../run/reconcile/resolve-many.js'),
    ]);
    const target = { io, plan, statePath, sandbox: sandboxRunsOf(flags) };
    if ('from' in asked) {
      const read = readDecisionFile(resolve(io.cwd, asked.from), asked.from);
      const adopts = read.lines.some((line) => 'adopt' in line.decision);
      const settled = await underLock(target, adopts, (store, client) => resolveMany(store, client, (named) => jobNamed(plan, named), { display: asked.from, ...read }, decidedBy()));
      say(io, [...settled.map((s) => settledText(s.settlement.job, s.row, s.settlement.decision, file)), `${asked.from}: ${plural(settled.length, 'job')} settled, in one transaction`]);
      return;
    }
    const job = jobNamed(plan, name as string);
    const row = await underLock(target, 'adopt' in asked, (store, client) => resolveDoubt(store, client, job, asked));
    say(io, [settledText(job, row, asked, file)]);
  });
};

/**
 * Runs `fn` on the manifest's state under its lock (never while a run of it is going: exit 75),
 * with a client of the service when `needsService` (the embedded sandbox the runs used, with
 * --sandbox; the standalone one, with --sandbox-url); closes all of it after.
 */
async function underLock<T>(
  target: { io: CliIo; plan: Plan; statePath: string; sandbox: SandboxRuns },
  needsService: boolean,
  fn: (store: Store, client: ServiceClient | undefined) => Promise<T>,
): Promise<T> {
  const [{ acquireLock, openStore, stateFiles }, { openService, resolveSandbox }] = await Promise.all([import('../../state/index.js'), import('../../run/open-service.js')]);
  const store = (await openStore(target.statePath)).useManifest(target.plan.manifestId);
  const closers: (() => unknown)[] = [() => store.close()];
  try {
    const lock = await acquireLock(store, { name: target.plan.manifestId });
    closers.unshift(() => lock.release());
    const choice = target.sandbox === true ? { speed: DEFAULT_SANDBOX_SPEED } : target.sandbox || undefined;
    const sandbox = needsService && choice ? { sandbox: await resolveSandbox(choice) } : {};
    const service = needsService ? await openService({ env: target.io.env, files: stateFiles(target.plan.manifestPath, target.statePath), ...sandbox }) : undefined;
    if (service) closers.unshift(() => service.close());
    return await fn(store, service?.client);
  } finally {
    for (const close of closers) await close();
  }
}

const say = (io: CliIo, lines: readonly string[]) => {
  for (const line of lines) io.stdout(`${line}\n`);
};
