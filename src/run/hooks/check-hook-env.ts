import { InvalidInputError } from '../../errors.js';
import { hookEnvNames } from '../../manifest/check/hooks.js';
import { locatedIn } from '../../manifest/read/yaml-source.js';
import type { Manifest } from '../../manifest/types.js';

/**
 * Hooks read `{{ env.X }}` when they run, from the run's environment (a secret such as an upload
 * token may exist only where runs happen, not where manifests are validated). A variable a hook
 * names but the run does not have is refused before anything is sent (exit 2), rather than found
 * after every job is paid for. A webhook address is not checked here: a notification that cannot
 * be sent is logged and never changes how the run ends.
 */
export function checkHookEnv(manifest: Pick<Manifest, 'steps' | 'hooks' | 'notify' | 'source' | 'displayFile'>, env: NodeJS.ProcessEnv): void {
  const at = locatedIn(manifest.source);
  const issues = [...hookEnvNames(manifest).hooks]
    .filter(([name]) => env[name] === undefined)
    .map(([name, path]) => at(path, `{{ env.${name} }}: environment variable ${name} is not set (hooks read it when they run)`));
  if (issues.length > 0) throw new InvalidInputError(issues, `${manifest.displayFile}: ${issues.length === 1 ? '1 problem' : `${issues.length} problems`}; nothing was sent`);
}
