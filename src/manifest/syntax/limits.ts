import { z } from 'zod';
import type { MatrixInput } from './matrix.js';
import { axesOf } from './matrix.js';
import { formatCount } from '../../util/format.js';

/**
 * How much a manifest may ask for: jobs per step and per manifest, and the size of the files it
 * reads. Why limits at all: a matrix of 8 axes × 20 values is 25.6 billion jobs, and expanding it
 * ran a machine out of memory after 95 s; a limit hit is refused at once, with the count, before
 * anything is expanded or read. The job limits and the data-file size can be raised in the
 * manifest (`limits:`); the manifest's own size cannot (it is read before its fields are known).
 */

/**
 * @default 100,000 jobs per step and per manifest: the planner is benchmarked at 100,000 CSV rows
 * (bench/plan-100k.bench.js), so a manifest at the limit plans in seconds.
 */
export const DEFAULT_MAX_JOBS = 100_000;
/** Why a ceiling on the overrides: past ten million jobs a plan no longer fits in memory. */
export const MAX_JOBS_CEILING = 10_000_000;
/** @default 100 MB per CSV or JSONL file: 100,000 rows of a 1,000-character script. */
export const DEFAULT_DATA_FILE_MB = 100;
/** Why: Node cannot hold a text of more than about 512 MB in one string. */
export const MAX_DATA_FILE_MB = 500;
/** Why 10 MB: a manifest is written by hand; bulk data belongs in a CSV or JSONL file. */
export const MAX_MANIFEST_MB = 10;

export const LimitsSchema = z
  .strictObject({
    jobs_per_step: z.int().min(1).max(MAX_JOBS_CEILING).optional().describe(`most jobs one step may make; default ${DEFAULT_MAX_JOBS}`),
    jobs_per_manifest: z.int().min(1).max(MAX_JOBS_CEILING).optional().describe(`most jobs all steps together may make; default ${DEFAULT_MAX_JOBS}`),
    data_file_mb: z.number().positive().max(MAX_DATA_FILE_MB).optional().describe(`largest CSV or JSONL file read, in MB; default ${DEFAULT_DATA_FILE_MB}`),
  })
  .describe('raise the limits on jobs and data files');
export type LimitsInput = z.infer<typeof LimitsSchema>;

/** A manifest's limits, as loading and expansion apply them. */
export interface Limits {
  /** Most jobs one step may make. @default DEFAULT_MAX_JOBS (100,000) */
  jobsPerStep: number;
  /** Most jobs all steps together may make. @default DEFAULT_MAX_JOBS (100,000) */
  jobsPerManifest: number;
  /** Largest CSV or JSONL file read, in bytes. @default DEFAULT_DATA_FILE_MB (100 MB) */
  dataFileBytes: number;
}

export const MB = 1024 * 1024;

/** The limits a manifest sets, over the defaults; a `limits:` block that is not sound gives the defaults. */
export function limitsOf(raw: unknown): Limits {
  const parsed = LimitsSchema.safeParse(raw ?? {});
  const input = parsed.success ? parsed.data : {};
  return {
    jobsPerStep: input.jobs_per_step ?? DEFAULT_MAX_JOBS,
    jobsPerManifest: input.jobs_per_manifest ?? DEFAULT_MAX_JOBS,
    dataFileBytes: Math.floor((input.data_file_mb ?? DEFAULT_DATA_FILE_MB) * MB),
  };
}

/**
 * The most combinations a matrix can have, by multiplication, without expanding it: the product
 * of its axes' lengths (exclude only removes), plus one per include entry (which adds at most one).
 */
export function matrixBound(matrix: MatrixInput): { count: number; factors: number[] } {
  const factors = axesOf(matrix).map(([, values]) => values.length);
  const product = factors.length === 0 ? 0 : factors.reduce((a, b) => a * b, 1);
  return { count: product + (matrix.include?.length ?? 0), factors };
}

/** A count as a message shows it: 25,600,000,000. */
export const count = (n: number) => (Number.isSafeInteger(n) ? formatCount(n) : `more than ${formatCount(Number.MAX_SAFE_INTEGER)}`);

/** The end of every limit message: which setting raises it. */
export const raise = (setting: keyof LimitsInput) => `raise limits.${setting} in the manifest to allow more`;
