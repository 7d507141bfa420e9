import path from 'node:path';
import { InvalidInputError, type InputIssue } from '../errors.js';
import type { StepKind } from '../step-kinds.js';
import { buildStep } from './check/build-step.js';
import { manifestId, manifestRealPath } from './identity.js';
import { expandManifest, expandSteps } from './expand/expand.js';
import { MAX_MANIFEST_MB, MB, type Limits } from './syntax/limits.js';
import { readCsv, readJsonl, type RowSet } from './read/rows.js';
import { runRules } from './check/rules.js';
import type { ManifestInput, StepInput } from './check/schema.js';
import { HooksSchema, NotifySchema } from './check/hooks-schema.js';
import { checkShape, type Shape } from './check/shape.js';
import { compileHooks, type HookSetup } from './check/hooks.js';
import { readTextFile } from './read/text-file.js';
import type { Manifest, ManifestStep } from './types.js';
import { locatedIn, parseYaml, type Located, type YamlSource } from './read/yaml-source.js';

/**
 * Loads a manifest in stages: YAML syntax → the manifest's shape → cross-field rules and the row
 * files → every job's request, checked by the client's schema. A problem stops only what depends
 * on it: YAML that does not parse stops everything; a step whose own shape is broken stops that
 * step; a rule that leaves a step's placeholder without a value, or a row file that cannot be
 * read, stops that step's request checks. Everything else is checked, and InvalidInputError
 * carries every problem found, ending with a line naming what could not be checked yet.
 */
export interface LoadOptions {
  /** Where `{{ env.X }}` values come from; only the variables referenced are kept. */
  env: NodeJS.ProcessEnv;
  /** Directory a relative manifest path is read from. @default process.cwd() */
  cwd?: string;
}

/** Why a cap: a broken 100,000-row CSV would otherwise print 100,000 lines. */
export const MAX_REPORTED_ISSUES = 200;

export async function loadManifest(file: string, options: LoadOptions): Promise<Manifest> {
  const absolute = await manifestRealPath(file, options.cwd);
  const read = await readTextFile(absolute, MAX_MANIFEST_MB * MB, 'write bulk data in a CSV or JSONL file (for_each) instead');
  if ('problem' in read) {
    const { problem } = read;
    throw invalid(file, [{ file, ...problem, message: problem.message === 'file not found' ? 'manifest not found' : problem.message }]);
  }
  const { text } = read;
  const { source, issues: yamlIssues } = parseYaml(file, text);
  if (yamlIssues.length > 0) throw invalid(file, yamlIssues, "the manifest's fields are not checked yet");
  const at = locatedIn(source);

  const shape = checkShape(source, at);
  const steps = shape.steps.flatMap((s, i) => [buildStep(s, i, shape)]);
  const rules = runRules({ input: shape, steps, stepIds: shape.ids, env: options.env, source, at, limits: shape.limits });
  const blocked = rules.blocked;
  const rowIssues = await loadRows({ absolute, file, inputs: shape.steps, limits: shape.limits, at }, steps, blocked);
  // Hooks do not block a step's requests: their problems are listed beside everything else.
  const hooks = compileHooks({ ...(shape.input ?? hookInputsOf(source.data)), steps: shape.steps }, steps, at);
  const early = [...shape.issues, ...rules.issues, ...rowIssues, ...columnIssues(steps, at, blocked), ...hooks.issues];

  if (early.length === 0 && shape.input) {
    const manifest = assemble(absolute, file, { input: shape.input, limits: shape.limits, hooks }, steps, options.env, source);
    const expansion = expandManifest(manifest);
    if (expansion.issues.length > 0) throw invalid(file, expansion.issues, uncheckedNote(notExpanded(steps, expansion.order), shape));
    manifest.warnings.push(...expansion.warnings);
    return manifest;
  }
  const checkable = steps.filter((s) => !blocked.has(s.index));
  const expansion = expandSteps({ steps: checkable, env: referencedEnv(checkable, options.env), source, limits: shape.limits });
  const unchecked = [...shape.stopped, ...blocked, ...notExpanded(checkable, expansion.order)];
  throw invalid(file, [...early, ...expansion.issues], uncheckedNote(unchecked, shape));
}

/** Steps in a cycle have no place in the order, so their requests were not checked. */
const notExpanded = (steps: readonly ManifestStep[], order: readonly string[]) => steps.filter((s) => !order.includes(s.id)).map((s) => s.index);

/** The last line when something could not be checked: which steps, and when they will be. */
function uncheckedNote(indexes: readonly number[], shape: Shape): string | undefined {
  const unique = [...new Set(indexes)].sort((a, b) => a - b);
  if (unique.length === 0) return undefined;
  const names = unique.map((i) => `steps.${i}${shape.ids[i] ? ` (${shape.ids[i]})` : ''}`);
  return `not fully checked yet: ${names.join(', ')}`;
}

function invalid(file: string, issues: InputIssue[], unchecked?: string): InvalidInputError {
  const shown = [...issues].sort(byPlace(file)).slice(0, MAX_REPORTED_ISSUES);
  if (issues.length > shown.length) shown.push({ message: `… and ${issues.length - shown.length} more problems` });
  if (unchecked) shown.push({ message: `… ${unchecked}; further checks run once these are fixed` });
  const count = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
  return new InvalidInputError(shown, `${file}: ${count}`);
}

/** The manifest's own problems first, then each data file's, each in line order. */
const byPlace = (manifestFile: string) => (a: InputIssue, b: InputIssue) =>
  Number(a.file !== manifestFile) - Number(b.file !== manifestFile) ||
  (a.file ?? '').localeCompare(b.file ?? '') ||
  (a.line ?? 0) - (b.line ?? 0) ||
  (a.column ?? 0) - (b.column ?? 0);

/** `hooks:` and `notify:` when the manifest's shape failed elsewhere: checked if their own shape is sound. */
function hookInputsOf(data: unknown): Pick<ManifestInput, 'hooks' | 'notify'> {
  const raw = (data !== null && typeof data === 'object' ? data : {}) as Record<string, unknown>;
  return { hooks: HooksSchema.safeParse(raw.hooks).data, notify: NotifySchema.safeParse(raw.notify).data };
}

function assemble(
  absolute: string,
  file: string,
  shape: { input: ManifestInput; limits: Limits; hooks: HookSetup },
  steps: ManifestStep[],
  env: NodeJS.ProcessEnv,
  source: YamlSource,
): Manifest {
  const { input, limits, hooks } = shape;
  const dir = path.dirname(absolute);
  const manifest: Manifest = {
    file: absolute,
    displayFile: file,
    name: input.name,
    identity: manifestId(input.name, input.project),
    budget: { maxCredits: input.budget?.max_credits ?? null },
    concurrency: input.concurrency,
    kindConcurrency: (input.kind_concurrency ?? {}) as Partial<Record<StepKind, number>>,
    retries: input.retries,
    outputsDir: path.resolve(dir, input.outputs ?? path.join('out', input.name)),
    steps,
    env: referencedEnv(steps, env),
    warnings: [],
    source,
    limits,
    hooks: hooks.hooks,
    notify: hooks.notify,
  };
  if (input.description !== undefined) manifest.description = input.description;
  return manifest;
}

/** Keeps only the variables the manifest uses, so a plan never carries the rest of the environment. */
function referencedEnv(steps: readonly ManifestStep[], env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const step of steps) {
    for (const { placeholder } of [...step.template.placeholders, ...(step.nameTemplate?.placeholders ?? [])]) {
      const value = env[placeholder.name];
      if (placeholder.ns === 'env' && value !== undefined) out[placeholder.name] = value;
    }
  }
  return out;
}

/** Where row files are found and named, and how much they may hold. */
interface RowSources {
  absolute: string;
  file: string;
  inputs: StepInput[];
  limits: Limits;
  at: Located;
}

/**
 * Reads each step's CSV/JSONL (relative to the manifest), naming files as the user would. A step
 * whose rows cannot be read joins `blocked`: its requests cannot be checked. A problem with a
 * file as a whole (missing, a directory, too large) is shown where the manifest names the file.
 */
async function loadRows({ absolute, file, inputs, limits, at }: RowSources, steps: ManifestStep[], blocked: Set<number>): Promise<InputIssue[]> {
  const [dir, shownDir] = [path.dirname(absolute), path.dirname(file)];
  const bounds = { maxBytes: limits.dataFileBytes, maxRows: limits.jobsPerStep };
  const issues: InputIssue[] = [];
  for (const step of steps) {
    const forEach = inputs[step.index]?.for_each;
    let loaded: { rows?: RowSet; issues: InputIssue[] } | undefined;
    if (forEach?.csv !== undefined) loaded = await readCsv(path.resolve(dir, forEach.csv), shown(shownDir, forEach.csv), bounds);
    else if (forEach?.jsonl !== undefined) loaded = await readJsonl(path.resolve(dir, forEach.jsonl), shown(shownDir, forEach.jsonl), bounds);
    else if (forEach?.rows !== undefined) loaded = { rows: inlineRows(forEach.rows, step, at), issues: [] };
    if (!loaded) continue;
    if (loaded.rows) step.rows = loaded.rows;
    if (loaded.issues.length > 0) blocked.add(step.index);
    issues.push(...loaded.issues.map((i) => (i.line === undefined ? at(['steps', step.index, 'for_each'], `${i.file}: ${i.message}`) : i)));
  }
  return issues;
}

/** A data file as issues name it: relative to where the user named the manifest, or absolute as written. */
const shown = (manifestDir: string, file: string) => (path.isAbsolute(file) ? file : path.join(manifestDir, file));

function inlineRows(rows: Record<string, unknown>[], step: ManifestStep, at: Located): RowSet {
  const where = (i: number) => at(['steps', step.index, 'for_each', 'rows', i], '');
  const first = where(0);
  const locate = (row: number, field: string) => {
    const { line, column } = at(['steps', step.index, 'for_each', 'rows', row, field], '');
    return line === undefined ? undefined : { line, column: column ?? 1 };
  };
  const lines = rows.map((_, i) => where(i).line ?? 0);
  return { source: 'rows', file: first.file ?? '', count: rows.length, row: (i) => rows[i] ?? {}, line: (i) => lines[i] ?? 0, text: false, locate };
}

/** `{{ row.X }}` over a CSV needs the column X (or a step default for it); without it, the step's requests wait. */
function columnIssues(steps: readonly ManifestStep[], at: Located, blocked: Set<number>): InputIssue[] {
  return steps.flatMap((step) => {
    const columns = step.rows?.columns;
    if (!columns) return [];
    const found = [...step.template.placeholders, ...(step.nameTemplate?.placeholders ?? []).map((f) => ({ ...f, inName: true }))]
      .filter(({ placeholder: p }) => p.ns === 'row' && !columns.includes(p.name) && !Object.hasOwn(step.rowDefaults, p.name))
      .map((f) =>
        at('inName' in f ? ['steps', step.index, 'name'] : step.withOrigin(f.path), `${f.placeholder.text}: ${step.rows?.file} has no column ${f.placeholder.name} (columns: ${columns.join(', ')})`),
      );
    if (found.length > 0) blocked.add(step.index);
    return found;
  });
}
