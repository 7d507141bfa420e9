import { z } from 'zod';
import { STEP_KINDS } from '../../step-kinds.js';
import { LimitsSchema } from '../syntax/limits.js';
import { HooksSchema, NotifySchema, StepHooksSchema } from './hooks-schema.js';
import { MAX_RETRIES } from './retry-limit.js';

/**
 * The manifest's own shape (stage 2 of loading, after YAML and before the cross-field rules).
 * Strict everywhere, so a misspelt key is an error with the accepted keys, not silently ignored.
 * A step's `with:` is only a map here: it is checked later, per job, after placeholder
 * substitution, by the same request schemas the client sends with (src/manifest/check/kinds.ts).
 */

/** A step id is used in placeholders (`{{ steps.ID.FIELD }}`) and job keys (`ID:hash`). */
export const STEP_ID_PATTERN = /^[a-z][a-z0-9_-]*$/;
/**
 * A manifest name becomes the default output folder `out/<name>`; with its `project:` (the same
 * form) it is the manifest's identity in the state (manifest/identity.ts): never a `/`, so
 * `project/name` reads one way only.
 */
export const NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const NAME_RULE = 'must be letters, digits, ., _ or -, starting with a letter or digit';
export const CUSTOM_TEMPLATE_MODES = ['preview', 'render', 'both'] as const;
export type CustomTemplateMode = (typeof CUSTOM_TEMPLATE_MODES)[number];

/** @default 4 jobs in flight at once. */
export const DEFAULT_CONCURRENCY = 4;
/**
 * Why a cap: a typo like `concurrency: 40000` would otherwise flood the service's render queue.
 * Why 1,000: the service publishes no limit of its own, and an account that renders hundreds at
 * once must be able to say so; every bound of a run (the start queue, the download backlog, the
 * claim window) grows with the concurrency, not with the batch.
 */
export const MAX_CONCURRENCY = 1000;
/** A step's `priority` is within ± this: room for any order of steps, and a stray huge number is refused as a typo. */
export const MAX_PRIORITY = 1000;

/** `retries:` (top level and per step) and `--retries`: how often a job the service failed is resubmitted in one run. */
export const RetriesSchema = z.int().min(0).max(MAX_RETRIES);

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const Row = z.record(z.string(), z.unknown());

export const ForEachSchema = z
  .strictObject({
    rows: z.array(Row).optional().describe('inline rows: one job per row, fields as {{ row.FIELD }}'),
    csv: z.string().min(1).optional().describe('CSV file (header row), relative to the manifest'),
    jsonl: z.string().min(1).optional().describe('JSON Lines file, one object per line, relative to the manifest'),
    step: z.string().min(1).optional().describe('one job per job of that step; its result as {{ item.FIELD }}'),
  })
  .describe('where the jobs of a step come from: exactly one of rows, csv, jsonl, step');

export const MatrixSchema = z
  .object({
    include: z.array(z.record(z.string(), Scalar)).optional().describe('extra combinations, or extra values for matching ones'),
    exclude: z.array(z.record(z.string(), Scalar)).optional().describe('combinations to drop'),
  })
  .catchall(z.array(Scalar).min(1))
  .describe('axes (name: [values]) multiplied into every combination, as {{ matrix.AXIS }}');

export const EstimateSchema = z.union([
  z.number().min(0),
  z.strictObject({ low: z.number().min(0), expected: z.number().min(0), high: z.number().min(0) }),
]);

export const StepSchema = z.strictObject({
  id: z.string().regex(STEP_ID_PATTERN, 'must be lower case letters, digits, _ or -, starting with a letter'),
  kind: z.enum(STEP_KINDS),
  description: z.string().optional(),
  with: z.record(z.string(), z.unknown()).default({}).describe('the request: the service field names of this kind'),
  for_each: ForEachSchema.optional(),
  matrix: MatrixSchema.optional(),
  defaults: z.record(z.string(), Scalar).optional().describe('values for {{ row.X }} when a row lacks X or leaves it empty'),
  needs: z.array(z.string()).optional().describe('steps to finish first, beyond those referenced'),
  name: z.string().min(1).optional().describe('output file stem template, e.g. "{{ row.sku }}-{{ matrix.language }}"'),
  download: z.boolean().default(true),
  estimate_credits: EstimateSchema.optional().describe('credits per job, for kinds the spec does not price'),
  mode: z.enum(CUSTOM_TEMPLATE_MODES).optional().describe('custom_template only; default both'),
  hooks: StepHooksSchema.optional(),
  priority: z.int().min(-MAX_PRIORITY).max(MAX_PRIORITY).optional().describe('which ready jobs are sent first: higher first, then plan order; default 0'),
  retries: RetriesSchema.optional().describe('resubmit a job the service reports failed up to this many times in a run (each retry may be paid for); default: the top-level retries'),
});
export type StepInput = z.infer<typeof StepSchema>;

export const ManifestSchema = z.strictObject({
  $schema: z.string().optional(),
  version: z.literal(1),
  name: z.string().regex(NAME_PATTERN, NAME_RULE).max(100),
  project: z
    .string()
    .regex(NAME_PATTERN, NAME_RULE)
    .max(100)
    .optional()
    .describe('the project the manifest belongs to: with name, how the state knows it (project/name); tells apart manifests of one name sharing a state'),
  description: z.string().optional(),
  budget: z.strictObject({ max_credits: z.number().positive() }).optional(),
  concurrency: z.int().min(1).max(MAX_CONCURRENCY).default(DEFAULT_CONCURRENCY),
  kind_concurrency: z.partialRecord(z.enum(STEP_KINDS), z.int().min(1).max(MAX_CONCURRENCY)).optional(),
  retries: RetriesSchema.default(0).describe('resubmit a job the service reports failed up to this many times in a run (each retry may be paid for); default 0'),
  outputs: z.string().min(1).optional().describe('output folder relative to the manifest; default out/<name>'),
  limits: LimitsSchema.optional(),
  defaults: z
    .partialRecord(z.enum(STEP_KINDS), z.record(z.string(), z.unknown()))
    .optional()
    .describe('request fields per kind, under every step of that kind'),
  hooks: HooksSchema.optional(),
  notify: NotifySchema.optional(),
  steps: z.array(StepSchema).min(1),
});
export type ManifestInput = z.infer<typeof ManifestSchema>;
