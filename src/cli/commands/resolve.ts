import { UsageError } from '../../errors.js';
import { DEFAULT_SANDBOX_SPEED } from '../../run/defaults.js';
import { stateWord } from '../../state/vocabulary.js';
import type { RegisterCommand } from './index.js';
import { addStateFlags, type StateFlags } from '../state-flags.js';
import { jobNamed, manifestTarget } from './target.js';

interface ResolveFlags extends StateFlags {
  adopt?: string;
  absent?: boolean;
}

/**
 * `reelpipe resolve MANIFEST JOB --adopt REMOTE_ID | --absent`: the operator's decision on a job
 * in doubt (see src/run/reconcile/resolve-doubt.ts). Takes the manifest's lock: never while a run
 * of it is going (exit 75). `--adopt` checks the id at the service first (with --sandbox, the
 * embedded sandbox the runs used).
 */
export const registerResolve: RegisterCommand = (program, io) => {
  addStateFlags(
    program
      .command('resolve')
      .description('settle a job in doubt: --adopt the remote job that was found, or say it is --absent')
      .argument('<manifest>', 'the manifest YAML file')
      .argument('<job>', 'the job, by key or label (see reelpipe doubt)')
      .option('--adopt <remote-id>', 'the remote job the POST made (checked by a GET: kind, body, owner)')
      .option('--absent', 'nothing was created: the next run submits the job (and pays for it)'),
  ).action(async (file: string, name: string, flags: ResolveFlags) => {
    if (Boolean(flags.adopt) === Boolean(flags.absent)) throw new UsageError('give one decision: --adopt REMOTE_ID (it exists) or --absent (it was never created)');
    const { plan, statePath } = await manifestTarget(io, file, flags);
    const job = jobNamed(plan, name);
    const [{ acquireLock, StateStore }, { resolveDoubt }, { openService }] = await Promise.all([
      import('../../state/index.js'), import('../../run/reconcile/resolve-doubt.js'), import('../../run/open-service.js'),
    ]);
    const store = StateStore.open(statePath).useManifest(plan.manifestPath);
    const closers: (() => unknown)[] = [() => store.close()];
    try {
      closers.unshift(acquireLock(store, { name: plan.manifestPath }).release);
      const service = flags.adopt ? await openService({ env: io.env, statePath, ...(flags.sandbox ? { sandbox: { speed: DEFAULT_SANDBOX_SPEED } } : {}) }) : undefined;
      if (service) closers.unshift(() => service.close());
      const row = await resolveDoubt(store, service?.client, job, flags.adopt ? { adopt: flags.adopt } : { absent: true });
      io.stdout(
        flags.adopt
          ? `${job.label} (${job.key}): adopted ${flags.adopt} (now ${stateWord(row.status)}); the next run ${row.status === 'done' ? 'downloads its outputs' : 'tracks and downloads it'}, paying nothing more\n`
          : `${job.label} (${job.key}): recorded as never created; the next run submits it again (and pays for it)\n`,
      );
    } finally {
      for (const close of closers) await close();
    }
  });
};
