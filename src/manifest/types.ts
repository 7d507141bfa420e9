import type { StepKind } from '../step-kinds.js';
import type { Limits } from './syntax/limits.js';
import type { Combination, Scalar } from './syntax/matrix.js';
import type { RowSet } from './read/rows.js';
import type { CustomTemplateMode } from './check/schema.js';
import type { NotifyEvent } from './check/hooks-schema.js';
import type { CompiledTemplate, Path } from './syntax/template.js';
import type { YamlSource } from './read/yaml-source.js';

/** Credits per job a step declares for a kind the spec does not price. */
export interface DeclaredEstimate {
  low: number;
  expected: number;
  high: number;
}

/** A `{{ … }}` placeholder of a hook or a webhook address (src/manifest/check/hooks.ts). */
export interface HookPlaceholder {
  ns: 'row' | 'matrix' | 'env' | 'job' | 'output' | 'run' | 'totals';
  /** The column, axis, variable or field name. */
  name: string;
  /** Canonical text, e.g. `{{ job.key }}`. */
  text: string;
}

/** One argument of a hook: literal text and placeholders, substituted into one string. */
export type HookArg = (string | HookPlaceholder)[];

/** A hook's command: `[cmd, arg, …]`, run without a shell. */
export interface HookCommand {
  argv: HookArg[];
  /** Where it is written in the manifest (`hooks.on_output`, `steps.2.hooks.on_output`). */
  path: (string | number)[];
  timeoutMs: number;
}

/** One `notify:` entry: the address (read when the run ends) and the endings it wants. */
export interface NotifyTarget {
  url: HookArg;
  on: NotifyEvent[];
  path: (string | number)[];
}

/** One step of a loaded, validated manifest. */
export interface ManifestStep {
  /** Position in the manifest's `steps:` list (issues point at `steps.INDEX`). */
  index: number;
  id: string;
  kind: StepKind;
  /** custom_template only: preview, render, or both (the default). */
  mode?: CustomTemplateMode;
  description?: string;
  /** The request template: the manifest's defaults for this kind under the step's own `with:`. */
  with: Record<string, unknown>;
  template: CompiledTemplate;
  /** Where each top-level `with` key was written: the step, or `defaults.KIND`. */
  withOrigin: (path: Path) => Path;
  nameTemplate?: CompiledTemplate;
  rows?: RowSet;
  /** Values for `{{ row.X }}` when a row lacks X or leaves it empty. */
  rowDefaults: Record<string, Scalar>;
  matrix?: Combination[];
  /** Where the value of `axis` in a combination of `matrix` is written (`steps.N.matrix.AXIS.I`), when it can be told. */
  matrixOrigin?: (combination: Combination, axis: string) => Path | undefined;
  /** `for_each: { step: ID }`: one job per job of that step. */
  forEachStep?: string;
  /** Steps to finish first: explicit `needs`, referenced steps, the for_each step. */
  needs: string[];
  download: boolean;
  estimate?: DeclaredEstimate;
  /** Run once per downloaded output file of each job: the step's own `hooks.on_output`, or the manifest's. */
  onOutput?: HookCommand;
  /** Which of the ready jobs are sent first: higher first, then plan order (run/ready-order.ts). @default 0 */
  priority: number;
  /** The step's own `retries:`, overriding the manifest's; undefined when it sets none. */
  retries?: number;
}

/** A manifest as loadManifest returns it: checked, with its CSV/JSONL rows read. */
export interface Manifest {
  /** Absolute path of the manifest file. */
  file: string;
  /** The path as the user gave it: every issue and message uses this form. */
  displayFile: string;
  name: string;
  /**
   * How the state knows it: `project/name`, or `name` without a `project:` (manifest/identity.ts).
   * Its jobs, runs and lock are keyed by it, not by `file`: the same manifest from another path is
   * the same manifest.
   */
  identity: string;
  description?: string;
  budget: { maxCredits: number | null };
  concurrency: number;
  kindConcurrency: Partial<Record<StepKind, number>>;
  /** How often a job the service reports failed is resubmitted in one run, for steps that say nothing. @default 0 */
  retries: number;
  /** Absolute output folder. */
  outputsDir: string;
  /** In manifest order. */
  steps: ManifestStep[];
  /** The environment variables the manifest references, and only those. */
  env: Record<string, string>;
  warnings: string[];
  /** The parsed YAML, to locate problems found while expanding. */
  source: YamlSource;
  /** How many jobs and how large data files it may have (defaults, or its `limits:`). */
  limits: Limits;
  /** `hooks:` beyond each step's onOutput: the end-of-run hook and the limits hooks run within. */
  hooks: { onFinish?: HookCommand; timeoutMs: number; concurrency: number };
  /** `notify:`: where the run's summary goes when it ends. */
  notify: NotifyTarget[];
}
