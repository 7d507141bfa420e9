import type { StepKind } from '../../step-kinds.js';
import { DEFAULT_TEMPLATE_MODE, requestSchemaFor } from './kinds.js';
import { matrixBound, type Limits } from '../syntax/limits.js';
import { expandMatrix, valueOrigin, type MatrixInput } from '../syntax/matrix.js';
import type { ManifestInput, StepInput } from './schema.js';
import { compileTemplate, type Path } from '../syntax/template.js';
import type { DeclaredEstimate, ManifestStep } from '../types.js';

/**
 * Turns a step as parsed into a ManifestStep: defaults merged, templates compiled, needs inferred.
 * A matrix is expanded only when its size, by multiplication, is within the jobs a step may have
 * (the rule matrixWithinLimit reports one that is not, and stops the step).
 */
export function buildStep(input: StepInput, index: number, manifest: Pick<ManifestInput, 'defaults'> & { limits: Limits }): ManifestStep {
  const defaults = manifest.defaults?.[input.kind] ?? {};
  const merged = deepMerge(defaults, input.with);
  const mode = input.kind === 'custom_template' ? (input.mode ?? DEFAULT_TEMPLATE_MODE) : undefined;
  const template = compileTemplate(merged, requestSchemaFor(input.kind, mode));
  const forEachStep = input.for_each?.step;
  const referenced = template.placeholders.filter((f) => f.placeholder.ns === 'steps').map((f) => f.placeholder.name);
  const step: ManifestStep = {
    index,
    id: input.id,
    kind: input.kind,
    with: merged,
    template,
    withOrigin: originResolver(index, input.kind, input.with, defaults),
    rowDefaults: input.defaults ?? {},
    needs: unique([...(input.needs ?? []), ...(forEachStep ? [forEachStep] : []), ...referenced]),
    download: input.download,
    priority: input.priority ?? 0,
  };
  if (mode) step.mode = mode;
  if (input.retries !== undefined) step.retries = input.retries;
  if (input.description !== undefined) step.description = input.description;
  if (input.name !== undefined) step.nameTemplate = compileTemplate(input.name);
  const matrix = input.matrix as MatrixInput | undefined;
  if (matrix && matrixBound(matrix).count <= manifest.limits.jobsPerStep) {
    step.matrix = expandMatrix(matrix);
    step.matrixOrigin = (combination, axis) => {
      const inMatrix = valueOrigin(matrix, combination, axis);
      return inMatrix && ['steps', index, 'matrix', ...inMatrix];
    };
  }
  if (forEachStep !== undefined) step.forEachStep = forEachStep;
  if (input.estimate_credits !== undefined) step.estimate = declaredEstimate(input.estimate_credits);
  return step;
}

function declaredEstimate(value: number | DeclaredEstimate): DeclaredEstimate {
  return typeof value === 'number' ? { low: value, expected: value, high: value } : value;
}

const unique = <T>(items: T[]) => [...new Set(items)];
const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Manifest defaults under the step's own values: objects merge key by key, anything else is replaced. */
export function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const under = out[key];
    out[key] = isPlainObject(under) && isPlainObject(value) ? deepMerge(under, value) : value;
  }
  return out;
}

function has(value: unknown, path: Path): boolean {
  let current = value;
  for (const segment of path) {
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, segment)) return false;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return true;
}

/** A value merged from `defaults.KIND` is reported where it was written, not in the step. */
function originResolver(index: number, kind: StepKind, own: Record<string, unknown>, defaults: Record<string, unknown>) {
  return (path: Path): Path =>
    !has(own, path) && path.length > 0 && has(defaults, path) ? ['defaults', kind, ...path] : ['steps', index, 'with', ...path];
}
