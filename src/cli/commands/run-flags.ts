import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { RunManifestInput } from '../../run/run-manifest.js';
import { DEFAULT_SANDBOX_SPEED } from '../../run/defaults.js';
import { MAX_RETRIES } from '../../manifest/check/retry-limit.js';
import { sandboxUrlOption, STATE_FLAG_HELP } from '../state-flags.js';

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** `90`, `90s`, `30m`, `2h`, `500ms` → milliseconds (a bare number is seconds); a bad one names `flag`. */
export const duration = (flag: string) => (text: string): number => {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new UsageError(`${flag} ${text}: not a duration; use e.g. 90s, 30m or 2h`);
  return Number(match[1]) * UNIT_MS[match[2] ?? 's']!;
};

export const parseDuration = duration('--max-wait');

export const positive = (flag: string) => (text: string) => {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new UsageError(`${flag} ${text}: use a number above 0`);
  return value;
};

export const wholePositive = (flag: string) => (text: string) => {
  const value = positive(flag)(text);
  if (!Number.isInteger(value)) throw new UsageError(`${flag} ${text}: use a whole number above 0`);
  return value;
};

/** `--retries N`: a whole number from 0 (none) to MAX_RETRIES, as the manifest's `retries:` takes. */
const retries = (text: string) => {
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0 || value > MAX_RETRIES) throw new UsageError(`--retries ${text}: use a whole number from 0 to ${MAX_RETRIES}`);
  return value;
};

/** Flags shared by `run` and `retry`. */
export interface RunFlags {
  sandbox?: boolean;
  sandboxSpeed: number;
  sandboxUrl?: string;
  state?: string;
  concurrency?: number;
  maxCredits?: number;
  maxWait?: number;
  resubmitInDoubt?: boolean;
  webhookListen?: string;
  webhookPublicUrl?: string;
  timeScale?: number;
  rate?: number;
  haltAfter?: number;
  waitForLock?: number;
  lease?: number;
  retries?: number;
}

export function addRunFlags(command: Command): Command {
  command
    .option('--sandbox', `run against an embedded sandbox service; ${STATE_FLAG_HELP.sandbox}`)
    .option('--sandbox-speed <x>', 'speed of the embedded sandbox (every wait of the run is scaled by 1/X too)', positive('--sandbox-speed'), DEFAULT_SANDBOX_SPEED)
    .addOption(sandboxUrlOption(`run against the standalone sandbox at this address, waits scaled by the speed it reports; ${STATE_FLAG_HELP.sandboxUrl}`))
    .option('--state <path>', STATE_FLAG_HELP.state)
    .option('--concurrency <n>', 'jobs in flight at once (default: the manifest\'s concurrency)', wholePositive('--concurrency'))
    .option('--max-credits <n>', 'credit cap for this manifest (default: budget.max_credits)', positive('--max-credits'))
    .option('--max-wait <duration>', 'stop waiting after this long (e.g. 30m) and exit 4; rerun to resume', parseDuration)
    .option('--resubmit-in-doubt', 'resubmit jobs held in doubt (they may then be paid twice)')
    .option('--webhook-listen <host:port>', 'receive job webhooks here (needs --webhook-public-url)')
    .option('--webhook-public-url <url>', 'the public URL that reaches --webhook-listen')
    .option('--time-scale <x>', 'multiply every wait (poll intervals, settle time); for fast sandboxes', positive('--time-scale'))
    .option('--rate <n>', 'requests per second to start with (default 20): it grows while it holds requests back and no 429 comes, and halves when most answers are 429s', positive('--rate'))
    .option('--halt-after <n>', 'stop submitting after N jobs failed in this run; jobs already sent finish (exit 1)', wholePositive('--halt-after'))
    .option('--wait-for-lock <duration>', 'if another run holds the manifest, wait this long (e.g. 10m) for it before exiting 75', duration('--wait-for-lock'))
    .option('--lease <duration>', "how long the run's lock outlives its last heartbeat (default 60s): a run silent for longer may be taken over, and sends nothing more once its lease ran out", duration('--lease'))
    .option('--retries <n>', 'resubmit a job the service reports failed up to N times in this run, each retry paid like a submission (default: the manifest\'s retries, 0)', retries);
  return command;
}

/** `--step ID`, repeatable: only the jobs of these steps (`plan` and `run`; see run/select-steps.ts). */
export function addStepFlag(command: Command): Command {
  return command.option('--step <id>', 'only the jobs of this step (repeat for more); steps they need must be finished', (id: string, ids: string[] = []) => [...ids, id]);
}

export function runInputFrom(flags: RunFlags): Omit<RunManifestInput, 'manifestFile' | 'cwd' | 'env' | 'progress'> {
  if (Boolean(flags.webhookListen) !== Boolean(flags.webhookPublicUrl)) {
    throw new UsageError('--webhook-listen and --webhook-public-url go together: the service must be able to reach the receiver');
  }
  return {
    statePath: flags.state,
    sandbox: flags.sandboxUrl !== undefined ? { url: flags.sandboxUrl } : flags.sandbox ? { speed: flags.sandboxSpeed } : undefined,
    concurrency: flags.concurrency,
    maxCredits: flags.maxCredits,
    maxWaitMs: flags.maxWait,
    resubmitInDoubt: flags.resubmitInDoubt,
    timeScale: flags.timeScale,
    ratePerSecond: flags.rate,
    haltAfter: flags.haltAfter,
    waitForLockMs: flags.waitForLock,
    ...(flags.lease === undefined ? {} : { leaseMs: flags.lease }),
    retries: flags.retries,
    webhook: flags.webhookListen && flags.webhookPublicUrl ? { listen: flags.webhookListen, publicUrl: flags.webhookPublicUrl } : undefined,
  };
}
