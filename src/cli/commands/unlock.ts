import type { LockHolder } from '../../state/index.js';
import { UsageError } from '../../errors.js';
import { formatAge } from '../../util/time-format.js';
import { addStateFlags, locateManifestState, type StateFlags } from '../state-flags.js';
import type { RegisterCommand } from './index.js';

/**
 * `reelpipe unlock MANIFEST [--force]`: shows who holds the manifest's run lock — host, pid, run,
 * when it was taken, how old its heartbeat is, whether its process looks alive — and breaks it
 * only with `--force` (without: exit 2, nothing changed). Policy, why a person must insist: a lock
 * held by a live run keeps two runs from paying for the same jobs; a dead or silent holder's lock
 * is broken by the next run anyway (acquireLock), so unlock is for the cases it cannot judge
 * (another host, another pid namespace). A forced run that is still alive stops itself at its
 * next heartbeat (exit 75).
 */
export const registerUnlock: RegisterCommand = (program, io) => {
  addStateFlags(
    program
      .command('unlock')
      .description("show who holds a manifest's run lock; break it with --force")
      .argument('<manifest>', 'the manifest YAML file')
      .option('--force', 'break the lock (the holder, if alive, stops at its next heartbeat with exit 75)'),
  ).action(async (file: string, flags: StateFlags & { force?: boolean }) => {
    const { manifestId, statePath } = await locateManifestState(file, io, flags);
    const [{ existsSync }, { openStore, readLockHolder, forceUnlock, isPostgresAddress }] = await Promise.all([import('node:fs'), import('../../state/index.js')]);
    if (!isPostgresAddress(statePath) && !existsSync(statePath)) {
      io.stdout(`no lock on ${manifestId}: there is no state database at ${statePath}\n`);
      return;
    }
    const store = (await openStore(statePath)).useManifest(manifestId);
    try {
      const holder = await readLockHolder(store, manifestId);
      if (!holder) {
        io.stdout(`no lock on ${manifestId} (state: ${statePath})\n`);
        return;
      }
      io.stdout(describeHolder(holder, statePath));
      if (!flags.force) {
        throw new UsageError(`the lock was left as it is: add --force to break it${holder.process === 'alive' ? ' (its process is alive: that run would stop at its next heartbeat, exit 75)' : ''}`);
      }
      const broken = await forceUnlock(store, holder);
      io.stdout(broken ? `lock broken (recorded as lock:forced); a run still holding it stops at its next heartbeat (exit 75)\n` : 'the lock changed hands meanwhile: nothing was broken; run unlock again to see the new holder\n');
    } finally {
      await store.close();
    }
  });
};

const PROCESS_TEXT: Record<LockHolder['process'], string> = {
  alive: 'alive on this host',
  gone: 'not running (the next run breaks this lock by itself)',
  'another host': 'cannot be checked from here (another host)',
  'another pid namespace': 'cannot be checked from here (another pid namespace, e.g. another container)',
};

export function describeHolder(holder: LockHolder, statePath: string, now = Date.now()): string {
  const beat = `${formatAge(holder.heartbeatAgeMs)} ago${holder.stale ? ' — stale: the next run breaks this lock by itself' : ''}`;
  return [
    `lock on ${holder.name} (state: ${statePath})`,
    `  held by    ${holder.runId === null ? '' : `run ${holder.runId}, `}pid ${holder.pid} on ${holder.host}`,
    `  acquired   ${new Date(holder.acquiredAt).toISOString()} (${formatAge(Math.max(0, now - holder.acquiredAt))} ago)`,
    `  heartbeat  ${beat}`,
    `  process    ${PROCESS_TEXT[holder.process]}`,
    '',
  ].join('\n');
}
