import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** Files that mark a project's root folder (where its `state/` lives). */
const PROJECT_MARKERS = ['.git', 'package.json'];

/** The state database's file name in `state/`; sandbox runs keep theirs apart (never marking real jobs done). */
const STATE_FILE = { real: 'reelpipe.db', sandbox: 'sandbox.db' } as const;

/**
 * The folder a manifest's project lives in: the nearest folder, from the manifest's own upward,
 * that holds `.git` or `package.json`; else the manifest's own folder.
 *
 * Policy, why not the working directory: the state database is how reelpipe knows what is paid
 * for. Found from wherever the command happens to run, the same manifest run from another
 * directory met an empty state and paid for every job again. Found from the manifest, every
 * command (plan, run, status, retry, report) lands on the same database whatever the working
 * directory. Why these markers: they are what every tool takes as a project's root (a manifest in
 * `pipelines/` of a checkout shares the checkout's `state/`); a plain folder of manifests outside
 * any project keeps its state beside them, never in some unrelated folder higher up.
 */
export function projectRoot(manifestPath: string): string {
  const start = dirname(resolve(manifestPath));
  for (let dir = start; ; dir = dirname(dir)) {
    if (PROJECT_MARKERS.some((marker) => existsSync(join(dir, marker)))) return dir;
    if (dirname(dir) === dir) return start;
  }
}

/**
 * The state database a command uses: `--state PATH` (relative to the working directory, as typed),
 * else `state/reelpipe.db` — or `state/sandbox.db` for sandbox runs — in the manifest's project.
 */
export function resolveStatePath(manifestPath: string, options: { cwd: string; statePath?: string; sandbox?: boolean }): string {
  if (options.statePath !== undefined) return resolve(options.cwd, options.statePath);
  return join(projectRoot(manifestPath), 'state', options.sandbox ? STATE_FILE.sandbox : STATE_FILE.real);
}
