import { asText } from '../../manifest/syntax/placeholders.js';
import type { HookArg, HookPlaceholder } from '../../manifest/types.js';
import { redactSecrets, SECRET_ENV_VARS } from '../../util/logger.js';

/** What a hook's placeholders read, by namespace (`job`, `output`, `run`, `totals`, `row`, `matrix`). */
export type HookValues = Partial<Record<Exclude<HookPlaceholder['ns'], 'env'>, Readonly<Record<string, unknown>> | undefined>>;

/** The credentials' values in `env`: never in a hook's arguments, its record, or its environment. */
export const secretsOf = (env: NodeJS.ProcessEnv) => SECRET_ENV_VARS.map((name) => env[name]);

/**
 * Substitutes each argument on its own: whatever a value holds — `$(…)`, backticks, quotes, a
 * newline, `../` — it lands inside that one argument, and no shell ever reads it. `shown` is the
 * form recorded in the state database and printed: the same, except that `{{ env.X }}` stays as
 * written (an environment value may be a secret) and credentials are redacted in both.
 */
export function renderArgs(argv: readonly HookArg[], values: HookValues, env: NodeJS.ProcessEnv): { argv: string[]; shown: string[] } {
  const secrets = secretsOf(env);
  const render = (arg: HookArg, envText: (p: HookPlaceholder) => string) =>
    redactSecrets(arg.map((part) => (typeof part === 'string' ? part : part.ns === 'env' ? envText(part) : asText(values[part.ns]?.[part.name]))).join(''), secrets);
  return {
    argv: argv.map((arg) => render(arg, (p) => env[p.name] ?? '')),
    shown: argv.map((arg) => render(arg, (p) => p.text)),
  };
}

/**
 * The hook's environment: the run's own, less the service credentials (a hook has no business
 * with them), plus `REELPIPE_HOOK` and one `REELPIPE_NS_FIELD` per value its placeholders can
 * read (`REELPIPE_JOB_KEY`, `REELPIPE_OUTPUT_PATH`, `REELPIPE_TOTALS_DONE`, …).
 */
export function hookEnv(env: NodeJS.ProcessEnv, hook: string, values: HookValues, extra: Record<string, string> = {}): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && !(SECRET_ENV_VARS as readonly string[]).includes(name)) out[name] = value;
  }
  out.REELPIPE_HOOK = hook;
  const secrets = secretsOf(env);
  for (const ns of ['job', 'output', 'run', 'totals'] as const) {
    for (const [field, value] of Object.entries(values[ns] ?? {})) out[`REELPIPE_${ns}_${field}`.toUpperCase()] = redactSecrets(asText(value), secrets);
  }
  for (const [name, value] of Object.entries(extra)) out[name] = redactSecrets(value, secrets);
  return out;
}
