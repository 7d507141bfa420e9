import { z } from 'zod';
import type { InputIssue } from '../../errors.js';
import { STEP_KINDS } from '../../step-kinds.js';
import { limitsOf, type Limits } from '../syntax/limits.js';
import { ManifestSchema, StepSchema, type ManifestInput, type StepInput } from './schema.js';
import { missingIn, type Located, type YamlSource } from '../read/yaml-source.js';
import { readableIssues } from './zod-issues.js';

/**
 * Stage 2 of loading, the manifest's shape. Every shape problem is reported, and so that an
 * unknown top-level key or one broken step does not hide the problems of everything else, the
 * parts that are sound on their own — each step, each kind's defaults — go on to the later
 * stages. A step whose own shape (or whose kind's `defaults:`) is broken stops here.
 */
export interface Shape {
  issues: InputIssue[];
  /** The steps that passed their own shape check, at their index in `steps:` (others are holes). */
  steps: StepInput[];
  defaults: ManifestInput['defaults'];
  /** Indexes of the steps that stopped here. */
  stopped: number[];
  /** The id written at each index of `steps:`, when it is a string (for references and messages). */
  ids: (string | undefined)[];
  /** The manifest's limits, or the defaults where its `limits:` is missing or broken. */
  limits: Limits;
  /** The whole manifest, when its shape is sound. */
  input?: ManifestInput;
}

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const KindDefaults = z.record(z.string(), z.unknown());

export function checkShape(source: YamlSource, at: Located): Shape {
  const parsed = ManifestSchema.safeParse(source.data, { reportInput: true });
  if (parsed.success) {
    const { steps, defaults } = parsed.data;
    return { issues: [], steps, defaults, stopped: [], ids: steps.map((s) => s.id), limits: limitsOf(parsed.data.limits), input: parsed.data };
  }
  const missing = missingIn(source);
  const issues = readableIssues(parsed.error.issues, ManifestSchema).map((r) => (r.missing ? missing(r.path, r.message) : at(r.path, r.message, r.key)));
  const data = isRecord(source.data) ? source.data : {};
  const raw: unknown[] = Array.isArray(data.steps) ? data.steps : [];
  const { defaults, broken } = salvageDefaults(data.defaults);
  const steps: StepInput[] = [];
  const stopped: number[] = [];
  raw.forEach((item, i) => {
    const step = StepSchema.safeParse(item);
    if (step.success && broken !== 'all' && !broken.has(step.data.kind)) steps[i] = step.data;
    else stopped.push(i);
  });
  const ids = raw.map((item) => (isRecord(item) && typeof item.id === 'string' ? item.id : undefined));
  return { issues, steps, defaults, stopped, ids, limits: limitsOf(data.limits) };
}

/** The kinds' defaults that are sound; a kind whose defaults are not a map cannot be merged. */
function salvageDefaults(raw: unknown): { defaults: ManifestInput['defaults']; broken: Set<string> | 'all' } {
  if (raw === undefined) return { defaults: undefined, broken: new Set() };
  if (!isRecord(raw)) return { defaults: undefined, broken: 'all' };
  const defaults: Record<string, Record<string, unknown>> = {};
  const broken = new Set<string>();
  for (const [kind, value] of Object.entries(raw)) {
    // An unknown kind (reported above) applies to no step.
    if (!(STEP_KINDS as readonly string[]).includes(kind)) continue;
    const entry = KindDefaults.safeParse(value);
    if (entry.success) defaults[kind] = entry.data;
    else broken.add(kind);
  }
  return { defaults, broken };
}
