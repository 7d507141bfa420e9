import { basename, isAbsolute } from 'node:path';
import { LockedError, StateMismatchError } from '../errors.js';
import { readManifestId, type ManifestKey } from '../manifest/identity.js';
import { NAME_PATTERN } from '../manifest/check/schema.js';
import { projectRoot, stateAt, type Adoption } from '../state/index.js';
import { systemClock, type Clock } from '../util/clock.js';
import { plural } from '../util/format.js';

/**
 * A manifest is known by its identity (`project/name`, manifest/identity.ts); an older reelpipe
 * knew it by its file's real path. Every command that works on a manifest's state (run, retry,
 * plan, validate, status, report, doubt, resolve, forget, runs, logs, unlock) calls this first:
 * the rows still keyed by the manifest's path are re-keyed to its identity, in one transaction,
 * paying nothing again (StateReader.adoptIdentity). What it said is passed to `say` (a run's note,
 * a command's stderr). A refusal changes nothing and throws:
 *   - two paths with rows of their own map to one identity → StateMismatchError (exit 2), naming
 *     both and the `project:` that tells them apart;
 *   - the identity's jobs and the path's share keys → StateMismatchError (exit 2), the same way;
 *   - an older reelpipe's run of the path holds its lock → LockedError (exit 75): try again later.
 * A key that is the real path (the manifest declares no identity that can be read) is left as it is.
 */
export async function adoptIdentity(statePath: string, manifest: ManifestKey, say: (line: string) => void = () => {}, clock: Clock = systemClock): Promise<void> {
  if (manifest.id === manifest.path) return;
  const state = stateAt(statePath);
  const adoption = await state.adoptIdentity(manifest.id, manifest.path, identityOfKey, clock);
  const text = adoptionText(adoption, manifest.id, state.location);
  if ('adopted' in adoption) {
    if (text) say(text);
    return;
  }
  throw 'refused' in adoption && adoption.refused === 'locked' ? new LockedError(text) : new StateMismatchError(text);
}

/** The identity a row's key names: a path-keyed row's manifest file, read now (undefined when it is gone or says none). */
async function identityOfKey(key: string): Promise<string | undefined> {
  return isAbsolute(key) ? readManifestId(key) : undefined;
}

/** What is said of an adoption: a line for one that re-keyed rows, the refusal's message, or '' for nothing done. */
export function adoptionText(adoption: Adoption, identity: string, state: string): string {
  if ('adopted' in adoption) {
    const done = adoption.adopted;
    if (done === null) return '';
    return (
      `${identity}: the state's records of ${done.path} (${plural(done.jobs, 'job')}, ${plural(done.runs, 'run')}) are kept under its name now ` +
      '(a manifest is known by its name, not its path): nothing is paid for again'
    );
  }
  const nothing = 'nothing was changed';
  switch (adoption.refused) {
    case 'paths': {
      const [a = '', b = ''] = adoption.paths;
      return (
        `${identity}: the state database ${state} holds the jobs of ${adoption.paths.length} manifests known by that name: ${adoption.paths.join(' and ')}. ` +
        `A manifest is known by its name (and project), not its path, so which jobs are whose cannot be told: ${projectAdvice(a, b)}; ${nothing}`
      );
    }
    case 'jobs': {
      const other = adoption.identityPath ?? 'a manifest of the same name from another path';
      return (
        `${identity}: the state database ${state} holds jobs of ${identity} (last run from ${other}) and jobs ${adoption.keys.join(', ')} ` +
        `under the path ${adoption.path} too: the records of two manifests of one name; ` +
        `${projectAdvice(adoption.path, adoption.identityPath ?? undefined)}; ${nothing}`
      );
    }
    case 'locked':
      return (
        `another run (pid ${adoption.pid} on ${adoption.host}) of ${adoption.path}, by an older reelpipe, is working on its jobs: ` +
        `they are kept under ${identity} once it has finished; try again then (${nothing})`
      );
  }
}

/**
 * How to tell two manifests of one name apart: a `project:` of their own in each, suggested from
 * their projects' folders (the folder holding `.git` or `package.json`) when those differ.
 */
function projectAdvice(a: string, b: string | undefined): string {
  const [pa, pb] = [a, b].map((file) => (file === undefined ? undefined : suggestedProject(file)));
  const both = b !== undefined && pa !== undefined && pb !== undefined && pa !== pb;
  return both
    ? `give each its own top-level \`project:\` (e.g. \`project: ${pa}\` in ${a} and \`project: ${pb}\` in ${b}), or another \`name:\``
    : `give each its own top-level \`project:\` (letters, digits, ., _ or -; e.g. \`project: ${pa ?? 'shop'}\` in ${a}), or another \`name:\``;
}

function suggestedProject(file: string): string | undefined {
  const name = basename(projectRoot(file));
  return NAME_PATTERN.test(name) && name.length <= 100 ? name : undefined;
}
