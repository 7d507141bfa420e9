import type { CustomTemplateMode } from '../manifest/index.js';
import type { StepKind } from '../step-kinds.js';

/** Credits one job is expected to cost. `exact` when the inputs fix the price. */
export interface CreditEstimate {
  low: number;
  expected: number;
  high: number;
  exact: boolean;
}

/** A sum of estimates; jobs of unknown cost are left out and counted separately. */
export interface CreditTotal {
  low: number;
  expected: number;
  high: number;
}

/** A reference in a job's request, bound at plan time to the upstream job that will answer it. */
export interface JobRef {
  /** Canonical placeholder text as it stands in the request, e.g. `{{ steps.product.id }}`. */
  placeholder: string;
  jobKey: string;
  /** Dotted field path in that job's result, e.g. `id` or `accents.0.id`. */
  field: string;
}

export interface PlannedJob {
  /** Stable identity: `STEP:` + 12 hex of sha256 over the normalised request and its bindings. */
  key: string;
  step: string;
  kind: StepKind;
  mode?: CustomTemplateMode;
  /** The body, with reference placeholders left in place where refs bind. */
  request: Record<string, unknown>;
  /** For path-id kinds (may be a reference placeholder). */
  pathId?: string;
  refs: JobRef[];
  /** null = unknown (never 0 for a kind nobody prices). */
  credits: CreditEstimate | null;
  /** Sanitised file stem for this job's outputs. */
  outputName: string;
  download: boolean;
  /** Where the row came from, e.g. `scripts.csv:14`, for messages and reports. */
  origin?: string;
  /** A readable name, unique within the manifest (rules in job-labels.ts). */
  label: string;
  /** The input row this job was made from: the loaded row itself, by reference (results.csv). */
  row?: Record<string, unknown>;
  /** The matrix combination this job was made from, by reference. */
  matrix?: Record<string, unknown>;
  /**
   * For a job of `style_ids: all`: the key of the request it was expanded from. Its styles are kept
   * with the job under it once it is sent (plan/style-catalogue.ts).
   */
  expandedFrom?: string;
  /** Its step's `priority`: which ready jobs are sent first (run/ready-order.ts). 0 unless set. */
  priority: number;
}

export interface StepPlan {
  id: string;
  kind: StepKind;
  mode?: CustomTemplateMode;
  jobs: number;
  /** The step's jobs of known cost, summed; null when every job is of unknown cost (never 0). */
  credits: CreditTotal | null;
  unknownJobs: number;
  needs: string[];
  download: boolean;
  /** Its jobs' priority (`priority:`, default 0). */
  priority: number;
  /** How often a job of the step the service reports failed is resubmitted in one run: the step's `retries:`, else the manifest's (default 0). */
  retries: number;
}

/** A plan's jobs: as many passes over them as asked, each in plan order, and how many there are. */
export interface PlanJobs extends Iterable<PlannedJob> {
  readonly length: number;
}

export interface Plan {
  name: string;
  /** The manifest file's real path (where it was read from this time). */
  manifestPath: string;
  /** The manifest's identity (`project/name` or `name`): what its rows in the state are keyed by. */
  manifestId: string;
  outputsDir: string;
  concurrency: number;
  kindConcurrency: Partial<Record<StepKind, number>>;
  budget: { maxCredits: number | null };
  /** In topological order. */
  steps: StepPlan[];
  /**
   * In dependency order: every job after the jobs it references. A streamed plan (planStream)
   * makes them afresh at each pass, holding none: read them in one pass where the plan may be
   * large, never by place.
   */
  jobs: PlanJobs;
  /** credits: null when every job is of unknown cost (unknown is never counted as 0). */
  totals: { jobs: number; credits: CreditTotal | null; unknownJobs: number };
  /** Identical jobs: kept (as KEY, KEY~2, …), and reported here. */
  duplicates: { key: string; step: string; count: number }[];
  warnings: string[];
}

/** A plan whose jobs are all held, as a list (planManifest): for the commands and tests of small plans that read jobs by place. */
export interface ListedPlan extends Plan {
  jobs: PlannedJob[];
}
