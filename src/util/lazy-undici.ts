import { createRequire } from 'node:module';
import type * as UndiciModule from 'undici';

type Undici = typeof UndiciModule;

const require = createRequire(import.meta.url);
let loaded: Undici | undefined;

/**
 * undici, loaded at its first use rather than at start-up. Why: it is the largest module the CLI
 * loads (about 0.1 s on the benchmark machine), and a run with nothing left to send — a finished
 * manifest run again, `plan`, `status` — never opens a connection. Types come from `import type`,
 * which costs nothing at run time; the package is the one every static import gets.
 */
export function undici(): Undici {
  return (loaded ??= require('undici') as Undici);
}
