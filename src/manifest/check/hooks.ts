import type { InputIssue } from '../../errors.js';
import { STATE_WORDS } from '../../state/vocabulary.js';
import { parseString } from '../syntax/placeholders.js';
import type { Located } from '../read/yaml-source.js';
import type { HookArg, HookCommand, HookPlaceholder, Manifest, ManifestStep, NotifyTarget } from '../types.js';
import { CREDENTIAL_ENV, CREDENTIAL_MESSAGE } from './credentials.js';
import { DEFAULT_HOOK_CONCURRENCY, DEFAULT_HOOK_TIMEOUT_SECONDS, type HooksInput, type NotifyInput, type StepHooksInput } from './hooks-schema.js';
import { closest } from './zod-issues.js';

/**
 * A hook's `{{ … }}` placeholders: plain substitution inside one argument, never code, never a
 * shell. Each place takes its own namespaces: an output hook knows the job, its file and its row;
 * the end of a run knows the run's outcome and totals; a webhook address only the environment.
 */
export const JOB_FIELDS = ['key', 'label', 'step', 'kind', 'remote_id', 'origin', 'output_name'] as const;
export const OUTPUT_FIELDS = ['path', 'relative_path', 'index', 'bytes', 'sha256', 'content_type'] as const;
const RUN_FIELDS = ['id', 'manifest', 'name', 'outputs'] as const;
export const RUN_END_FIELDS = [...RUN_FIELDS, 'outcome', 'exit_code', 'report'] as const;
/** `{{ totals.done }}`, `{{ totals.in_doubt }}`: a state word with `_` for its space. */
export const TOTALS_FIELDS = ['jobs', 'credits_used', 'credits_estimated', ...STATE_WORDS.map((w) => w.replace(' ', '_'))] as const;

type Place = 'on_output' | 'on_finish' | 'webhook_url';
/** Per place, each namespace it takes: its field names, or null for any name (a column, an axis, a variable). */
const ACCEPTS: Record<Place, Partial<Record<HookPlaceholder['ns'], readonly string[] | null>>> = {
  on_output: { row: null, matrix: null, env: null, job: JOB_FIELDS, output: OUTPUT_FIELDS, run: RUN_FIELDS },
  on_finish: { env: null, run: RUN_END_FIELDS, totals: TOTALS_FIELDS },
  webhook_url: { env: null },
};
const NAMED = { row: 'row.COLUMN', matrix: 'matrix.AXIS', env: 'env.NAME' } as Record<string, string>;

const acceptedText = (place: Place) =>
  Object.entries(ACCEPTS[place])
    .flatMap(([ns, fields]) => (fields ? fields.map((f) => `${ns}.${f}`) : [NAMED[ns] ?? `${ns}.NAME`]))
    .join(', ');

function parseInner(place: Place) {
  return (inner: string): HookPlaceholder | string => {
    const dot = inner.indexOf('.');
    const ns = (dot < 0 ? inner : inner.slice(0, dot)) as HookPlaceholder['ns'];
    const name = dot < 0 ? '' : inner.slice(dot + 1);
    const fields = ACCEPTS[place][ns];
    if (fields === undefined) {
      const where = (Object.keys(ACCEPTS) as Place[]).filter((p) => ACCEPTS[p][ns] !== undefined);
      const known = where.length > 0 ? `${ns} is known only in ${where.join(' and ')}` : 'unknown placeholder';
      return `${known} (accepted in ${place}: ${acceptedText(place)})`;
    }
    if (!name) return `${ns} needs a name, e.g. {{ ${NAMED[ns] ?? `${ns}.${fields?.[0] ?? 'NAME'}`} }}`;
    if (fields && !fields.includes(name)) {
      const near = closest(name, fields);
      return `${ns} has no field "${name}"${near ? `; did you mean ${ns}.${near}?` : ''} (accepted: ${fields.map((f) => `${ns}.${f}`).join(', ')})`;
    }
    return { ns, name, text: `{{ ${ns}.${name} }}` };
  };
}

type Path = (string | number)[];

/** Parses one argument (or a webhook address); a problem is reported where it is written. */
function compileArg(arg: string, place: Place, path: Path, at: Located, issues: InputIssue[]): HookArg {
  const { parts, errors } = parseString(arg, parseInner(place));
  for (const message of errors) issues.push(at(path, message));
  for (const p of parts) {
    if (typeof p === 'object' && p.ns === 'env' && (CREDENTIAL_ENV as readonly string[]).includes(p.name)) issues.push(at(path, CREDENTIAL_MESSAGE));
  }
  return parts;
}

const compile = (argv: readonly string[], place: Place, path: Path, at: Located, issues: InputIssue[]): HookArg[] =>
  argv.map((arg, i) => compileArg(arg, place, [...path, i], at, issues));

export const placeholdersIn = (arg: HookArg) => arg.filter((p): p is HookPlaceholder => typeof p === 'object');

export interface HookSetup {
  hooks: Manifest['hooks'];
  notify: NotifyTarget[];
  issues: InputIssue[];
}

interface HookInputs {
  hooks?: HooksInput | undefined;
  notify?: NotifyInput | undefined;
  /** The steps as parsed, at their index in `steps:`. */
  steps: readonly ({ hooks?: StepHooksInput | undefined } | undefined)[];
}

/**
 * Compiles `hooks:` and `notify:`, gives each step its output hook (its own, or the manifest's),
 * and reports every problem: placeholder syntax and names, credentials, a column or matrix axis
 * a step's rows do not have, a webhook address that is not http(s). Runs after the row files are
 * read, so CSV columns are known.
 */
export function compileHooks(input: HookInputs, steps: readonly ManifestStep[], at: Located): HookSetup {
  const issues: InputIssue[] = [];
  const top = input.hooks;
  const timeoutMs = (top?.timeout_seconds ?? DEFAULT_HOOK_TIMEOUT_SECONDS) * 1000;
  const shared = top?.on_output && { argv: compile(top.on_output, 'on_output', ['hooks', 'on_output'], at, issues), path: ['hooks', 'on_output'], timeoutMs };
  for (const step of steps) {
    const own = input.steps[step.index]?.hooks;
    const path = ['steps', step.index, 'hooks', 'on_output'];
    const command: HookCommand | undefined = own?.on_output ? { argv: compile(own.on_output, 'on_output', path, at, issues), path, timeoutMs } : shared;
    if (!command) continue;
    step.onOutput = own?.timeout_seconds === undefined ? command : { ...command, timeoutMs: own.timeout_seconds * 1000 };
    issues.push(...rowIssues(step, step.onOutput, own?.on_output !== undefined, at));
  }
  const hooks: Manifest['hooks'] = { timeoutMs, concurrency: top?.concurrency ?? DEFAULT_HOOK_CONCURRENCY };
  if (top?.on_finish) hooks.onFinish = { argv: compile(top.on_finish, 'on_finish', ['hooks', 'on_finish'], at, issues), path: ['hooks', 'on_finish'], timeoutMs };
  const notify = (input.notify ?? []).map((target, i): NotifyTarget => {
    const path = ['notify', i, 'webhook_url'];
    const url = compileArg(target.webhook_url, 'webhook_url', path, at, issues);
    if (placeholdersIn(url).length === 0 && !isWebAddress(target.webhook_url)) issues.push(at(path, `"${target.webhook_url}" is not an http:// or https:// address`));
    return { url, on: target.on, path };
  });
  return { hooks, notify, issues };
}

export function isWebAddress(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}

/**
 * A column the step's CSV lacks (and no step default fills), or an axis its matrix lacks, would
 * always be empty: a typo. The manifest's hook serves every step, so a step without rows or a
 * matrix gives it empty text; a step's own hook is written for that step, so there it is an error.
 */
function rowIssues(step: ManifestStep, command: HookCommand, own: boolean, at: Located): InputIssue[] {
  const columns = step.rows?.columns;
  const axes = step.matrix && new Set(step.matrix.flatMap((c) => Object.keys(c)));
  const problem = (p: HookPlaceholder): string | undefined => {
    if (p.ns === 'row' && columns && !columns.includes(p.name) && !Object.hasOwn(step.rowDefaults, p.name)) {
      return `step ${step.id} reads ${step.rows?.file}, which has no column ${p.name} (columns: ${columns.join(', ')})`;
    }
    if (p.ns === 'row' && own && !step.rows) return `step ${step.id} has no rows (for_each: { rows | csv | jsonl })`;
    if (p.ns === 'matrix' && axes && !axes.has(p.name)) return `step ${step.id} has no matrix axis "${p.name}" (axes: ${[...axes].join(', ')})`;
    if (p.ns === 'matrix' && own && !axes) return `step ${step.id} has no matrix`;
    return undefined;
  };
  return command.argv.flatMap((arg, i) =>
    placeholdersIn(arg).flatMap((p) => {
      const why = problem(p);
      return why ? [at([...command.path, i], `${p.text}: ${why}`)] : [];
    }),
  );
}

/** The environment variables hooks and webhook addresses read when they run (checked before a run sends anything). */
export function hookEnvNames(manifest: Pick<Manifest, 'steps' | 'hooks' | 'notify'>): { hooks: Map<string, Path>; notify: Set<string> } {
  const hooks = new Map<string, Path>();
  const commands = [...manifest.steps.flatMap((s) => (s.onOutput ? [s.onOutput] : [])), ...(manifest.hooks.onFinish ? [manifest.hooks.onFinish] : [])];
  for (const command of commands) {
    command.argv.forEach((arg, i) => placeholdersIn(arg).forEach((p) => p.ns === 'env' && !hooks.has(p.name) && hooks.set(p.name, [...command.path, i])));
  }
  const notify = new Set(manifest.notify.flatMap((t) => placeholdersIn(t.url).map((p) => p.name)));
  return { hooks, notify };
}
