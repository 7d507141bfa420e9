import { existsSync, renameSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { sanitizeSegment } from '../../download/index.js';
import type { RunContext } from '../run-context.js';

/**
 * Files of an earlier version of a job are kept. A job's files are named for its step and output
 * name (`STEP/NAME.EXT`), and an edited row makes a new job (a new key) of the same name: before it
 * writes a name an earlier job wrote, the earlier file moves to `STEP/superseded/NAME-OLDKEY.EXT`
 * and its record follows it (the report links it under the job's history). A job brought back
 * (the edit undone) moves its own file back the same way, superseding the other in turn.
 */

const FOLDER = 'superseded';

/** `shorts/superseded/intro-shorts-f99f2a.mp4` for `shorts/intro.mp4` of job `shorts:f99f2a`. */
export function supersededPath(path: string, key: string): string {
  const ext = extname(path);
  return join(dirname(path), FOLDER, `${basename(path, ext)}-${sanitizeSegment(key, 'job')}${ext}`);
}

/** The place a superseded file of `key` came from, or undefined for a file that is not one. */
function placeOf(path: string, key: string): string | undefined {
  const ext = extname(path);
  const tail = `-${sanitizeSegment(key, 'job')}`;
  const name = basename(path, ext);
  if (basename(dirname(path)) !== FOLDER || !name.endsWith(tail)) return undefined;
  return join(dirname(dirname(path)), `${name.slice(0, -tail.length)}${ext}`);
}

/**
 * Called before job `key` writes `file` (absolute): any other job of the manifest whose recorded
 * file is there is superseded — its file moved aside (when it is still there) and its record moved
 * with it. Between the decision to write and the write: one run holds the manifest.
 */
export async function claimPath(ctx: Pick<RunContext, 'store' | 'outputsDir' | 'folders'>, key: string, file: string): Promise<void> {
  const path = relative(ctx.outputsDir, file);
  for (const other of await ctx.store.outputsAtPath(path)) {
    if (other.jobKey === key) continue;
    const moved = supersededPath(path, other.jobKey);
    const there = existsSync(file);
    if (there) {
      ctx.folders.ensure(dirname(resolve(ctx.outputsDir, moved)));
      renameSync(file, resolve(ctx.outputsDir, moved));
    }
    await ctx.store.moveOutput(other.jobKey, other.idx, there ? moved : null, `superseded by ${key}, which writes ${path}`);
  }
}

/**
 * Moves job `key`'s own superseded files back to their places (an edit undone brings its job back
 * into the plan), superseding whatever job wrote there since. Returns whether any moved.
 */
export async function restorePlaces(ctx: Pick<RunContext, 'store' | 'outputsDir' | 'folders'>, key: string): Promise<boolean> {
  let moved = false;
  for (const output of await ctx.store.outputs(key)) {
    const place = output.path === null ? undefined : placeOf(output.path, key);
    if (place === undefined || output.path === null) continue;
    const from = resolve(ctx.outputsDir, output.path);
    if (!existsSync(from)) continue;
    const to = resolve(ctx.outputsDir, place);
    await claimPath(ctx, key, to);
    renameSync(from, to);
    await ctx.store.moveOutput(key, output.idx, place, 'its job is in the plan again');
    moved = true;
  }
  return moved;
}

/** Whether a recorded file of `key` lies in a superseded folder (so its job needs its place back). */
export const inSupersededFolder = (path: string | null, key: string): boolean => path !== null && placeOf(path, key) !== undefined;
