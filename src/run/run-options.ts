import { UNREACHABLE_AFTER_MS } from './service-health.js';
import { DEFAULT_MAX_DOWNLOAD_BYTES, downloadSettingsFromEnv } from '../download/index.js';
import { LOCK_STALE_AFTER_MS } from '../state/index.js';

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
  /**
   * How long the service may give no answer at all before the run stops with exit 4 (real time,
   * not scaled). @default UNREACHABLE_AFTER_MS (5 minutes; see service-health.ts)
   */
  unreachableAfterMs?: number;
  /**
   * Largest output file downloaded, in bytes; a larger one fails its job's download with the reason.
   * @default env REELPIPE_MAX_DOWNLOAD_BYTES, else 2 GiB
   */
  maxDownloadBytes?: number;
  /**
   * Hosts (`host` or `host:port`) whose output links are fetched even at a private address; the
   * service's own host always is.
   * @default env REELPIPE_DOWNLOAD_ALLOW_HOSTS (comma-separated), else none
   */
  downloadAllowHosts?: readonly string[];
  /**
   * `--step`: run only the jobs of these steps; a job they need from another step must already
   * be finished (see select-steps.ts). @default every step
   */
  steps?: readonly string[];
  /**
   * `--plan FILE`: run exactly the plan saved there (`reelpipe plan --out FILE`), refused when the
   * manifest or its data no longer yield it (run/saved-plan-file.ts). @default plan afresh
   */
  planFile?: string;
  /**
   * `--halt-after N`: after N jobs failed or were rejected in this run, stop submitting; jobs
   * already sent are tracked and downloaded as usual (see halt-after.ts). @default no limit
   */
  haltAfter?: number;
  /**
   * `--wait-for-lock`: while another run holds the manifest's lock, try again for up to this long
   * (ms) before exiting 75. @default 0 (refused at once)
   */
  waitForLockMs?: number;
  /**
   * `--lease`: how long the run's lock outlives its last heartbeat (ms): another run may break a
   * lock silent for longer, and this run starts no creating request past it (state/lock). The
   * heartbeat beats six times in it. @default 60 s
   */
  leaseMs?: number;
  /**
   * `--retries N`: resubmit a job the service reports failed up to N times in this run, over the
   * manifest's and every step's `retries` (see retry-failed.ts). @default each step's `retries`
   */
  retries?: number;
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
  unreachableAfterMs: number;
  maxDownloadBytes: number;
  downloadAllowHosts: readonly string[];
  haltAfter: number | null;
  waitForLockMs: number;
  leaseMs: number;
  /** null: each step's own `retries`. */
  retries: number | null;
}

/** Options win over the environment (`env`: the download settings), which wins over the defaults. */
export function resolveRunOptions(
  options: RunOptions,
  manifest: { concurrency: number; maxCredits: number | null },
  env: NodeJS.ProcessEnv = {},
): ResolvedRunOptions {
  const timeScale = options.timeScale ?? 1;
  const download = downloadSettingsFromEnv(env);
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
    unreachableAfterMs: options.unreachableAfterMs ?? UNREACHABLE_AFTER_MS,
    maxDownloadBytes: options.maxDownloadBytes ?? download.maxBytes ?? DEFAULT_MAX_DOWNLOAD_BYTES,
    downloadAllowHosts: options.downloadAllowHosts ?? download.allowHosts ?? [],
    haltAfter: options.haltAfter ?? null,
    waitForLockMs: options.waitForLockMs ?? 0,
    leaseMs: options.leaseMs ?? LOCK_STALE_AFTER_MS,
    retries: options.retries ?? null,
  };
}
