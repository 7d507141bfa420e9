import type { StepKind } from '../step-kinds.js';
import type { Combination, Scalar } from './matrix.js';
import type { RowSet } from './rows.js';
import type { CustomTemplateMode } from './schema.js';
import type { CompiledTemplate, Path } from './template.js';
import type { YamlSource } from './yaml-source.js';

/** Credits per job a step declares for a kind the spec does not price. */
export interface DeclaredEstimate {
  low: number;
  expected: number;
  high: number;
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
  /** `for_each: { step: ID }`: one job per job of that step. */
  forEachStep?: string;
  /** Steps to finish first: explicit `needs`, referenced steps, the for_each step. */
  needs: string[];
  download: boolean;
  estimate?: DeclaredEstimate;
}

/** A manifest as loadManifest returns it: checked, with its CSV/JSONL rows read. */
export interface Manifest {
  /** Absolute path of the manifest file. */
  file: string;
  /** The path as the user gave it: every issue and message uses this form. */
  displayFile: string;
  name: string;
  description?: string;
  budget: { maxCredits: number | null };
  concurrency: number;
  kindConcurrency: Partial<Record<StepKind, number>>;
  /** Absolute output folder. */
  outputsDir: string;
  /** In manifest order. */
  steps: ManifestStep[];
  /** The environment variables the manifest references, and only those. */
  env: Record<string, string>;
  warnings: string[];
  /** The parsed YAML, to locate problems found while expanding. */
  source: YamlSource;
}
