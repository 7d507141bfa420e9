import { realpath } from 'node:fs/promises';
import path from 'node:path';

/**
 * A manifest's identity: its real path. Reached through a symlinked release directory, a moved
 * checkout's link or a bind mount, it is still the same manifest, whose jobs must never be paid
 * for again nor run by two processes at once (its jobs' scope, its run lock, its runs).
 */
export async function manifestIdentity(file: string, cwd: string = process.cwd()): Promise<string> {
  const resolved = path.resolve(cwd, file);
  return realpath(resolved).catch(() => resolved);
}
