import { basename, delimiter, dirname, isAbsolute, relative, resolve, sep } from 'node:path';

/**
 * How to call the CLI again the way the user just did, for "next:" hints. Why not always
 * `npx reelpipe`: outside a project that depends on reelpipe, npx would fetch whatever package of
 * that name the registry holds; and `reelpipe` alone works only when it is on the PATH. So, from the
 * launcher's path (`process.argv[1]`):
 *   - under a project's `node_modules` that holds the working folder → `npx reelpipe`;
 *   - a `reelpipe` found in a PATH folder (a global install, `npm link`) → `reelpipe`;
 *   - otherwise (a clone) → `node PATH/TO/bin/reelpipe.js`, relative to the working folder when it
 *     lies below it, else absolute.
 * `pathEnv` is the PATH variable; `script` undefined (an embedding) gives `reelpipe`.
 */
export function invokedAs(script: string | undefined, cwd: string, pathEnv: string | undefined): string {
  if (!script) return 'reelpipe';
  const launcher = resolve(cwd, script);
  const modules = launcher.lastIndexOf(`${sep}node_modules${sep}`);
  if (modules >= 0 && within(launcher.slice(0, modules), cwd)) return 'npx reelpipe';
  const onPath = (pathEnv ?? '').split(delimiter).some((dir) => dir !== '' && resolve(cwd, dir) === dirname(launcher));
  if (onPath && basename(launcher) === 'reelpipe') return 'reelpipe';
  const below = relative(cwd, launcher);
  return `node ${shellWord(within(cwd, launcher) && below !== '' ? below : launcher)}`;
}

/** Whether `path` is `folder` or inside it. */
function within(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** A path as one shell word: as is when it holds nothing a shell would read, else single-quoted. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
