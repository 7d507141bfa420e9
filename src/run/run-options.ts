/** Knobs of one run; the CLI fills them from flags, tests set them directly. */
export interface RunOptions {
  /** Jobs in flight at once. @default the manifest's `concurrency` */
  concurrency?: number;
  /** The credit cap. @default the manifest's `budget.max_credits` (none if unset) */
  maxCredits?: number | null;
  /** Stop waiting after this long (ms) and exit 4; a later run resumes. @default no limit */
  maxWaitMs?: number;
  /** Resubmit jobs held in doubt: the operator accepts that one may be paid twice. @default false */
  resubmitInDoubt?: boolean;
  /**
   * Multiplies every wait of the runner (poll intervals, the in-doubt settle time); for a sandbox
   * running N times faster, 1/N.
   * @default 1
   */
  timeScale?: number;
  /** Requests per second to start with (it halves on each 429). @default 20 */
  ratePerSecond?: number;
  /** Files downloaded at once. @default 4 */
  downloadConcurrency?: number;
  /** Reads sent at once while polling kinds without an ids list. @default 8 */
  readConcurrency?: number;
  /**
   * How long after its intent an in-doubt POST must be before "not found" counts as "not
   * created" (a slow request may still land). Scaled by timeScale.
   * @default 30_000
   */
  inDoubtSettleMs?: number;
  /**
   * How far around the intent's time a candidate's created_at may lie (clock skew between us
   * and the service).
   * @default 120_000
   */
  clockSkewMs?: number;
  /** Webhook receiver `HOST:PORT` and the public URL that reaches it. @default no webhooks */
  webhook?: { listen: string; publicUrl: string };
}

export interface ResolvedRunOptions {
  concurrency: number;
  maxCredits: number | null;
  maxWaitMs: number | null;
  resubmitInDoubt: boolean;
  timeScale: number;
  ratePerSecond: number;
  downloadConcurrency: number;
  readConcurrency: number;
  inDoubtSettleMs: number;
  clockSkewMs: number;
  webhook: { listen: string; publicUrl: string } | null;
}

export function resolveRunOptions(options: RunOptions, manifest: { concurrency: number; maxCredits: number | null }): ResolvedRunOptions {
  const timeScale = options.timeScale ?? 1;
  return {
    concurrency: options.concurrency ?? manifest.concurrency,
    maxCredits: options.maxCredits === undefined ? manifest.maxCredits : options.maxCredits,
    maxWaitMs: options.maxWaitMs ?? null,
    resubmitInDoubt: options.resubmitInDoubt ?? false,
    timeScale,
    ratePerSecond: options.ratePerSecond ?? 20,
    downloadConcurrency: options.downloadConcurrency ?? 4,
    readConcurrency: options.readConcurrency ?? 8,
    inDoubtSettleMs: (options.inDoubtSettleMs ?? 30_000) * timeScale,
    clockSkewMs: options.clockSkewMs ?? 120_000,
    webhook: options.webhook ?? null,
  };
}
