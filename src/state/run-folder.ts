import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { StateMismatchError } from '../errors.js';
import type { Clock } from '../util/clock.js';

/** The files in an outputs folder naming the run whose first member writes there (several hosts): one per manifest. */
export const RUN_FILE_PREFIX = '.reelpipe-run.';

/** `.reelpipe-run.MANIFEST.json`: a folder two manifests of one state share keeps each one's run apart. */
const runFile = (outputsDir: string, manifest: string): string => join(outputsDir, `${RUN_FILE_PREFIX}${manifest.replace(/[^A-Za-z0-9._-]/g, '_')}.json`);

/** The shortest wait of a member that joined for the first member's record (it is written right after the lock is taken). */
const MIN_WAIT_MS = 5_000;
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
 * reads its run there. It waits up to its lease (at least 5 s: the first member writes the record
 * just after taking the lock, and may be joined in between; a network mount may show a new file
 * late), then refuses clearly: exit 2, nothing sent.
 */
export function markRunFolder(outputsDir: string, manifest: string, run: RunRecord): void {
  const file = runFile(outputsDir, manifest);
  const temp = `${file}.${process.pid}.part`;
  writeFileSync(temp, `${JSON.stringify(run)}\n`);
  renameSync(temp, file);
}

/**
 * Resolves once `outputsDir` names run `joined` of `manifest` (or the run is stopping: its stop
 * says why); throws StateMismatchError when it does not within the wait.
 */
export async function seeRunFolder(outputsDir: string, manifest: string, joined: { runId: number; host: string }, waitMs: number, clock: Clock, signal: AbortSignal): Promise<void> {
  const file = runFile(outputsDir, manifest);
  const end = clock.now() + Math.max(MIN_WAIT_MS, waitMs);
  let found = readRun(file);
  while (found?.run !== joined.runId && clock.now() < end && !signal.aborted) {
    await clock.sleep(LOOK_EVERY_MS, signal).catch(() => undefined);
    found = readRun(file);
  }
  if (found?.run === joined.runId || signal.aborted) return;
  throw new StateMismatchError(
    `this host does not see the outputs folder run ${joined.runId} writes: ${file} ` +
      `${found ? `names run ${found.run} (on ${found.host})` : 'is not there'}, but the run this process joined is ${joined.runId}, started on ${joined.host}. ` +
      'Members of one run must write one folder: make the manifest\'s outputs: an absolute path on a mount every host shares, mounted at the same path. Nothing was sent',
  );
}

function readRun(file: string): RunRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as Partial<RunRecord>;
    return typeof record.run === 'number' && typeof record.host === 'string' ? { run: record.run, host: record.host } : undefined;
  } catch {
    return undefined;
  }
}
