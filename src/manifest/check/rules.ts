import type { InputIssue } from '../../errors.js';
import { CREDENTIAL_ENV, CREDENTIAL_MESSAGE, credentialKeys } from './credentials.js';
import { topologicalOrder } from './graph.js';
import { RESULTS } from './kinds.js';
import { count, matrixBound, raise, type Limits } from '../syntax/limits.js';
import { matrixKeys, type MatrixInput } from '../syntax/matrix.js';
import type { Namespace } from '../syntax/placeholders.js';
import type { ManifestInput } from './schema.js';
import { acceptedKeys, schemaAt } from '../../api/schemas/schema-walk.js';
import type { FoundPlaceholder } from '../syntax/template.js';
import type { ManifestStep } from '../types.js';
import type { Located, YamlSource } from '../read/yaml-source.js';
import { closest } from './zod-issues.js';

/**
 * Cross-field rules over the steps whose shape is valid: one small named rule each, every one
 * run, every violation reported (rows are not read yet; column checks come after).
 */
export interface RuleContext {
  /** The steps as parsed, at their index in `steps:` (holes where a step's shape failed). */
  input: Pick<ManifestInput, 'steps'>;
  steps: readonly ManifestStep[];
  /** Every step id written, including steps whose shape failed: a reference to one is no error here. */
  stepIds: readonly (string | undefined)[];
  env: NodeJS.ProcessEnv;
  source: YamlSource;
  at: Located;
  limits: Limits;
}
type Rule = (ctx: RuleContext) => InputIssue[];

/** Every placeholder of a step (in `with` and in `name`), with the YAML path it was written at. */
function placeholdersOf(step: ManifestStep, namespaces: readonly Namespace[]) {
  const inWith = step.template.placeholders.map((f) => ({ ...f, yaml: step.withOrigin(f.path) }));
  const inName = (step.nameTemplate?.placeholders ?? []).map((f: FoundPlaceholder) => ({
    ...f,
    yaml: ['steps', step.index, 'name'] as (string | number)[],
  }));
  return [...inWith, ...inName].filter((f) => namespaces.includes(f.placeholder.ns));
}

const stepPath = (step: ManifestStep, ...rest: (string | number)[]) => ['steps', step.index, ...rest];

export const MANIFEST_RULES: Record<string, Rule> = {
  /** References and job keys name steps by id, so an id must be unique. */
  duplicateStepIds: ({ steps, at }) => {
    const first = new Map<string, number>();
    return steps.flatMap((step) => {
      const seen = first.get(step.id);
      if (seen === undefined) first.set(step.id, step.index);
      return seen === undefined ? [] : [at(stepPath(step, 'id'), `duplicate step id "${step.id}" (first used by steps.${seen})`)];
    });
  },

  forEachHasOneSource: ({ input, steps, at }) =>
    steps.flatMap((step) => {
      const forEach = input.steps[step.index]?.for_each;
      if (!forEach) return [];
      const given = (['rows', 'csv', 'jsonl', 'step'] as const).filter((k) => forEach[k] !== undefined);
      return given.length === 1
        ? []
        : [at(stepPath(step, 'for_each'), `takes exactly one of rows, csv, jsonl, step (got ${given.join(', ') || 'none'})`)];
    }),

  modeOnlyForCustomTemplate: ({ input, steps, at }) =>
    steps.flatMap((step) =>
      input.steps[step.index]?.mode !== undefined && step.kind !== 'custom_template'
        ? [at(stepPath(step, 'mode'), `applies only to kind custom_template (this step is ${step.kind})`)]
        : [],
    ),

  estimateInOrder: ({ steps, at }) =>
    steps.flatMap(({ estimate, ...step }) =>
      estimate && !(estimate.low <= estimate.expected && estimate.expected <= estimate.high)
        ? [at(stepPath(step as ManifestStep, 'estimate_credits'), 'needs low <= expected <= high')]
        : [],
    ),

  placeholderSyntax: ({ steps, at }) =>
    steps.flatMap((step) => [
      ...step.template.errors.map((e) => at(step.withOrigin(e.path), e.message)),
      ...(step.nameTemplate?.errors ?? []).map((e) => at(stepPath(step, 'name'), e.message)),
    ]),

  /** A file name is fixed at plan time, so it can use only what is known then. */
  namePlanTimeOnly: ({ steps, at }) =>
    steps.flatMap((step) =>
      (step.nameTemplate?.placeholders ?? [])
        .filter((f) => f.placeholder.ns === 'steps' || f.placeholder.ns === 'item')
        .map((f) => at(stepPath(step, 'name'), `${f.placeholder.text} is only known at run time (accepted here: row.COLUMN, matrix.AXIS, env.NAME)`)),
    ),

  knownSteps: ({ input, steps, stepIds, at }) => {
    const ids = [...new Set(stepIds.filter((id) => id !== undefined))];
    const unknown = (id: string) => {
      const near = closest(id, ids);
      return `no step "${id}"${near ? `; did you mean ${near}?` : ''} (steps: ${ids.join(', ')})`;
    };
    return steps.flatMap((step) => [
      ...placeholdersOf(step, ['steps'])
        .filter((f) => !ids.includes(f.placeholder.name))
        .map((f) => at(f.yaml, `${f.placeholder.text}: ${unknown(f.placeholder.name)}`)),
      ...(input.steps[step.index]?.needs ?? []).flatMap((need, i) => (ids.includes(need) ? [] : [at(stepPath(step, 'needs', i), unknown(need))])),
      ...(step.forEachStep !== undefined && !ids.includes(step.forEachStep) ? [at(stepPath(step, 'for_each', 'step'), unknown(step.forEachStep))] : []),
    ]);
  },

  /** A reference must name a field the referenced kind's result has. */
  resultFields: ({ steps, at }) => {
    const byId = new Map(steps.map((s) => [s.id, s]));
    return steps.flatMap((step) =>
      placeholdersOf(step, ['steps', 'item']).flatMap((f) => {
        const target = byId.get(f.placeholder.ns === 'item' ? (step.forEachStep ?? '') : f.placeholder.name);
        if (!target) return [];
        const result = RESULTS[target.kind];
        if (!result) return [at(f.yaml, `${f.placeholder.text}: a ${target.kind} step yields no result to reference`)];
        const fields = acceptedKeys(result, []);
        const [first = ''] = f.placeholder.field;
        if (fields.includes(first) && schemaAt(result, f.placeholder.field)) return [];
        return [at(f.yaml, `${f.placeholder.text}: a ${target.kind} result has no field "${f.placeholder.field.join('.')}" (accepted: ${fields.join(', ')})`)];
      }),
    );
  },

  itemNeedsForEachStep: ({ steps, at }) =>
    steps.flatMap((step) =>
      step.forEachStep !== undefined
        ? []
        : placeholdersOf(step, ['item']).map((f) => at(f.yaml, `${f.placeholder.text} needs for_each: { step: ID } on this step`)),
    ),

  rowNeedsRows: ({ input, steps, at }) =>
    steps.flatMap((step) => {
      const forEach = input.steps[step.index]?.for_each;
      if (forEach && forEach.step === undefined) return [];
      return placeholdersOf(step, ['row']).map((f) =>
        at(f.yaml, `${f.placeholder.text} needs for_each: { rows | csv | jsonl } on this step`),
      );
    }),

  matrixKeysKnown: ({ input, steps, at }) =>
    steps.flatMap((step) => {
      const keys = matrixKeysOf(input, step.index);
      return placeholdersOf(step, ['matrix'])
        .filter((f) => !keys.has(f.placeholder.name))
        .map((f) =>
          at(f.yaml, keys.size ? `${f.placeholder.text}: no matrix axis "${f.placeholder.name}" (axes: ${[...keys].join(', ')})` : `${f.placeholder.text} needs a matrix on this step`),
        );
    }),

  /** Counted by multiplication, never expanded: 8 axes of 20 values are 25.6 billion combinations. */
  matrixWithinLimit: ({ input, steps, limits, at }) =>
    steps.flatMap((step) => {
      const matrix = input.steps[step.index]?.matrix as MatrixInput | undefined;
      const { count: n, factors } = matrix ? matrixBound(matrix) : { count: 0, factors: [] };
      if (n <= limits.jobsPerStep) return [];
      const product = `${factors.join(' × ')}${matrix?.include?.length ? ` + ${matrix.include.length} include` : ''}`;
      return [at(stepPath(step, 'matrix'), `up to ${count(n)} combinations (${product}), each a job: above the limit of ${count(limits.jobsPerStep)} jobs per step; ${raise('jobs_per_step')}`)];
    }),

  /** Credentials come from the environment to the client only, never into a request body. */
  envVariables: ({ steps, env, at }) =>
    steps.flatMap((step) =>
      placeholdersOf(step, ['env']).flatMap((f) => {
        if ((CREDENTIAL_ENV as readonly string[]).includes(f.placeholder.name)) return [at(f.yaml, CREDENTIAL_MESSAGE)];
        return env[f.placeholder.name] === undefined ? [at(f.yaml, `${f.placeholder.text}: environment variable ${f.placeholder.name} is not set`)] : [];
      }),
    ),

  noCredentials: ({ source, at }) => credentialKeys(source.doc).map((path) => at(path.slice(0, -1), CREDENTIAL_MESSAGE, String(path.at(-1)))),

  noCycles: ({ steps, at }) =>
    topologicalOrder(steps).cycles.map((cycle) => {
      const first = steps.find((s) => s.id === cycle[0]);
      return at(first ? stepPath(first, 'id') : ['steps'], `steps depend on each other in a cycle: ${cycle.join(' → ')}`);
    }),
};

function matrixKeysOf(input: Pick<ManifestInput, 'steps'>, index: number): Set<string> {
  const matrix = input.steps[index]?.matrix;
  return matrix ? matrixKeys(matrix as MatrixInput) : new Set();
}

/**
 * Rules whose violation leaves a placeholder without a value (or a credential in a body, or a
 * matrix too large to expand), so the step's requests cannot be checked until it is fixed:
 * checking them would only repeat the problem, quote a secret, or never end. The other rules
 * leave the requests checkable.
 */
const BLOCKING = new Set(['placeholderSyntax', 'rowNeedsRows', 'matrixKeysKnown', 'matrixWithinLimit', 'envVariables', 'noCredentials']);

/** Every violation, and the indexes of the steps whose requests cannot be checked because of one. */
export function runRules(ctx: RuleContext): { issues: InputIssue[]; blocked: Set<number> } {
  const issues: InputIssue[] = [];
  const blocked = new Set<number>();
  for (const [name, rule] of Object.entries(MANIFEST_RULES)) {
    const found = rule(ctx);
    issues.push(...found);
    if (BLOCKING.has(name)) for (const issue of found) stepsOfPath(issue.path ?? '', ctx.steps).forEach((i) => blocked.add(i));
  }
  return { issues, blocked };
}

/** The steps a path is in: `steps.N…`, or every step of KIND for a value of `defaults.KIND…`. */
function stepsOfPath(path: string, steps: readonly ManifestStep[]): number[] {
  const step = /^steps\.(\d+)(\.|$)/.exec(path);
  if (step) return [Number(step[1])];
  const kind = /^defaults\.([^.]+)(\.|$)/.exec(path)?.[1];
  return kind === undefined ? [] : steps.filter((s) => s.kind === kind).map((s) => s.index);
}

