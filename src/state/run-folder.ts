import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateMismatchError } from '../errors.js';
import type { Clock } from '../util/clock.js';

/** The file in an outputs folder naming the run whose first member writes there (several hosts). */
export const RUN_FILE = '.reelpipe-run.json';

/** How long a member that joined waits for the first member's record (it is written right after the lock is taken). */
const WAIT_MS = 5_000;
const LOOK_EVERY_MS = 200;

interface RunRecord {
  run: number;
  host: string;
}

/**
 * The shared folder's probe. On a state several hosts share, the members of one run must write
 * one outputs folder (an absolute path on a mount every host sees): a member writing a folder of
 * its own would leave files the others' report, downloads and re-runs never find. The owner
 * record (outputs-owner.ts) cannot tell — every host of one database may claim a folder of its
 * own alike — so the first member, once it holds the run, names its run in the folder, and a
 * member joining it looks for that name before it claims any job: it sees the folder only if it
 * reads its run there. It waits a little (the first member writes the record just after taking
 * the lock, and may be joined in between), then refuses clearly: exit 2, nothing sent.
 */
export function markRunFolder(outputsDir: string, run: RunRecord): void {
  const temp = join(outputsDir, `.${RUN_FILE}.${process.pid}.part`);
  writeFileSync(temp, `${JSON.stringify(run)}\n`);
  renameSync(temp, join(outputsDir, RUN_FILE));
}

/** Resolves once `outputsDir` names run `joined`; throws StateMismatchError when it does not within the wait. */
export async function seeRunFolder(outputsDir: string, joined: { runId: number; host: string }, clock: Clock, signal: AbortSignal): Promise<void> {
  const end = clock.now() + WAIT_MS;
  let found = readRun(outputsDir);
  while (found?.run !== joined.runId && clock.now() < end && !signal.aborted) {
    await clock.sleep(LOOK_EVERY_MS, signal).catch(() => undefined);
    found = readRun(outputsDir);
  }
  if (found?.run === joined.runId) return;
  throw new StateMismatchError(
    `this host does not see the outputs folder run ${joined.runId} writes: ${join(outputsDir, RUN_FILE)} ` +
      `${found ? `names run ${found.run} (on ${found.host})` : 'is not there'}, but the run this process joined is ${joined.runId}, started on ${joined.host}. ` +
      'Members of one run must write one folder: make the manifest\'s outputs: an absolute path on a mount every host shares, mounted at the same path. Nothing was sent',
  );
}

function readRun(outputsDir: string): RunRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(join(outputsDir, RUN_FILE), 'utf8')) as Partial<RunRecord>;
    return typeof record.run === 'number' && typeof record.host === 'string' ? { run: record.run, host: record.host } : undefined;
  } catch {
    return undefined;
  }
}
