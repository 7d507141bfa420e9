import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { InvalidInputError, UsageError } from '../../errors.js';

/**
 * Fault profiles: each fault is a named rate (0 to 1), drawn per request, job, webhook or download
 * from its own seeded stream, so one fault's rate never shifts another's draws.
 */
export const FAULT_NAMES = [
  /** 429 with Retry-After, before the handler runs. */
  'rateLimit',
  /** 503 with Retry-After before anything is processed (a gateway or maintenance answer). */
  'unavailable',
  /** A slow answer: the response waits `slowMs` (÷ speed) first. */
  'slow',
  /** 500 after a creating POST has created (and charged) its job. */
  'errorAfterCreate',
  /** Connection reset after a creating POST has created (and charged) its job. */
  'resetAfterCreate',
  /** A job ends failed after processing. */
  'jobFailure',
  /** A job ends rejected (kinds that have the rejected state) before rendering. */
  'jobRejection',
  /** One HTML ad does not fit within max_size_mb: it fails and is refunded. */
  'adTooLarge',
  /** A webhook is not sent. */
  'webhookDrop',
  /** A webhook is sent twice. */
  'webhookDuplicate',
  /** An output URL is issued already expired, so its download gets 403. */
  'urlExpired',
  /** A download is cut mid-body: half the bytes, then the connection closes. */
  'downloadCut',
  /** A slow CDN: a job output's download waits `slowMs` (÷ speed) before its answer. */
  'slowDownload',
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

export interface FaultProfile {
  /** Rate per fault name, 0 to 1; a fault not listed never happens. */
  rates: Partial<Record<FaultName, number>>;
  /** Retry-After of 429 and 503 answers, in seconds. @default 1 */
  retryAfterSeconds?: number;
  /** Delay of a slow answer before ÷ speed, in milliseconds. @default 3000 */
  slowMs?: number;
}

const Rate = z.number().min(0).max(1);
const ProfileFile = z.strictObject({
  rates: z.strictObject(Object.fromEntries(FAULT_NAMES.map((name) => [name, Rate.optional()]))),
  retryAfterSeconds: z.int().min(0).optional(),
  slowMs: z.number().min(0).optional(),
});

/** The built-in profiles. Why these rates: flaky is a bad day, hostile proves every recovery path. */
export const FAULT_PROFILES: Record<'none' | 'flaky' | 'hostile', FaultProfile> = {
  none: { rates: {} },
  flaky: {
    rates: {
      rateLimit: 0.05, unavailable: 0.02, slow: 0.02, errorAfterCreate: 0.02, resetAfterCreate: 0.02,
      jobFailure: 0.05, jobRejection: 0.01, adTooLarge: 0.05, webhookDrop: 0.1, webhookDuplicate: 0.1,
      urlExpired: 0.05, downloadCut: 0.05, slowDownload: 0.02,
    },
  },
  hostile: {
    rates: {
      rateLimit: 0.2, unavailable: 0.1, slow: 0.05, errorAfterCreate: 0.1, resetAfterCreate: 0.1,
      jobFailure: 0.2, jobRejection: 0.05, adTooLarge: 0.2, webhookDrop: 0.3, webhookDuplicate: 0.3,
      urlExpired: 0.2, downloadCut: 0.2, slowDownload: 0.05,
    },
  },
};

/** A profile by name, a FaultProfile as is, or a FILE.json path (checked, errors name file and field). */
export function resolveFaultProfile(faults: string | FaultProfile | undefined): FaultProfile {
  if (faults === undefined) return FAULT_PROFILES.none;
  if (typeof faults !== 'string') return faults;
  if (faults in FAULT_PROFILES) return FAULT_PROFILES[faults as keyof typeof FAULT_PROFILES];
  if (!faults.endsWith('.json')) {
    throw new UsageError(`unknown fault profile "${faults}": use none, flaky, hostile or a FILE.json path`);
  }
  return loadProfileFile(faults);
}

function loadProfileFile(file: string): FaultProfile {
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new InvalidInputError([{ file, message: `cannot read the fault profile: ${(error as Error).message}` }]);
  }
  const result = ProfileFile.safeParse(data);
  if (result.success) return result.data as FaultProfile;
  throw new InvalidInputError(
    result.error.issues.map((issue) => ({
      file,
      path: issue.path.join('.'),
      message:
        issue.code === 'unrecognized_keys'
          ? `unknown key ${issue.keys.join(', ')}; accepted: ${(issue.path.length ? FAULT_NAMES : ['rates', 'retryAfterSeconds', 'slowMs']).join(', ')}`
          : `${issue.message} (rates are numbers from 0 to 1)`,
    })),
    'invalid fault profile',
  );
}
