import { isWebAddress, placeholdersIn } from '../../manifest/check/hooks.js';
import type { NotifyTarget } from '../../manifest/types.js';
import { redactSecrets } from '../../util/logger.js';
import { renderArgs, secretsOf } from '../hooks/hook-args.js';
import { systemClock } from '../../util/clock.js';
import { postJson, shownAddress, type PostOptions, type PostResult } from './post-webhook.js';
import { summaryText, type RunSummary } from './run-summary.js';

/**
 * What each notification gets when the run's `--max-wait` has (nearly) run out. Why a floor: the
 * run ended, and saying how is the notification's whole point — one quick try (a chat webhook
 * answers in well under a second) is worth a second or two past the deadline. Why no more: a
 * deadline is what a cron user relies on to have the process gone; each target gets at most this
 * past it, tried one after the other.
 */
export const NOTIFY_FLOOR_MS = 2000;

/** What became of one `notify:` entry. */
export interface Notified {
  /** `https://hooks.slack.com/…`: the host only. */
  target: string;
  /** The entry's `on:` did not include how the run ended. */
  filtered: boolean;
  /** Why nothing was sent (an unset variable, not an address); null when it was. */
  skipped: string | null;
  result: PostResult | null;
}

/**
 * Posts the run's summary to every `notify:` entry whose `on:` matches how the run ended (or says
 * `always`): `{ text, summary }`, `text` being Slack's. Each address is read from the environment
 * now, when the run ends. A notification that cannot be sent is said on `say` and returned; it
 * never throws, so it can never change how the run exits. With a hard deadline (`deadlineAt`, by
 * the caller: the run's `--max-wait`), each POST is bounded by the time left before it,
 * but never by less than `floorMs`.
 */
export async function sendNotifications(
  targets: readonly NotifyTarget[],
  summary: RunSummary,
  env: NodeJS.ProcessEnv,
  options: PostOptions & {
    say: (line: string) => void;
    /** The clock's milliseconds. @default none (the run had no --max-wait) */
    deadlineAt?: number;
    /** @default NOTIFY_FLOOR_MS */
    floorMs?: number;
  },
): Promise<Notified[]> {
  const clock = options.clock ?? systemClock;
  const { deadlineAt } = options;
  const until = () => (deadlineAt === undefined ? undefined : Math.max(deadlineAt, clock.now() + (options.floorMs ?? NOTIFY_FLOOR_MS)));
  const body = redactSecrets(JSON.stringify({ text: summaryText(summary), summary }), secretsOf(env));
  const out: Notified[] = [];
  for (const [i, target] of targets.entries()) {
    const where = `notify.${i}`;
    if (!target.on.includes('always') && !target.on.includes(summary.ending)) {
      out.push({ target: where, filtered: true, skipped: null, result: null });
      continue;
    }
    const unset = placeholdersIn(target.url).find((p) => env[p.name] === undefined);
    const url = renderArgs([target.url], {}, env).argv[0] ?? '';
    const skipped = unset ? `environment variable ${unset.name} is not set` : isWebAddress(url) ? null : 'its webhook_url is not an http:// or https:// address';
    if (skipped) {
      options.say(`reelpipe: ${where} not notified: ${skipped} (the exit code is unchanged)\n`);
      out.push({ target: where, filtered: false, skipped, result: null });
      continue;
    }
    const result = await postJson(url, body, { ...options, until: until() });
    const shown = shownAddress(url);
    options.say(
      result.ok
        ? `notified ${shown} (${summary.ending.replace('_', ' ')})\n`
        : `reelpipe: notifying ${shown} failed after ${result.attempts} attempt${result.attempts === 1 ? '' : 's'}: ${result.error} (the exit code is unchanged)\n`,
    );
    out.push({ target: shown, filtered: false, skipped: null, result });
  }
  return out;
}
