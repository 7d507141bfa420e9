import { ApiConnectionError, ApiInDoubtError, ApiStatusError, ApiTimeoutError, type ServiceClient } from '../api/index.js';
import type { Clock } from '../util/clock.js';

/**
 * How long the service may give no answer at all — only refused connections, resets, timeouts —
 * before the run stops (exit 4). Why 5 minutes: past the client's own retries of each request
 * and any restart of a service or proxy, yet short enough that a night's cron run against a
 * service that is down does not retry until --max-wait (or forever without one): it ends, says
 * so, and the next run carries on. Any HTTP answer, even an error status, proves it reachable.
 */
export const UNREACHABLE_AFTER_MS = 5 * 60_000;

/** Whether an error means no answer came back at all (as opposed to an error status). */
function noAnswer(error: unknown): boolean {
  if (error instanceof ApiStatusError) return false;
  if (error instanceof ApiConnectionError || error instanceof ApiTimeoutError) return true;
  return error instanceof ApiInDoubtError && !(error.cause instanceof ApiStatusError);
}

/**
 * Wraps every operation of `client` to watch whether the service answers. `onUnreachable` is
 * called (once per outage) when no answer has come for `afterMs` while requests kept failing.
 */
export function watchHealth(client: ServiceClient, clock: Clock, afterMs: number, onUnreachable: (message: string) => void): ServiceClient {
  let lastAnswer = clock.now();
  let told = false;
  const answered = () => {
    lastAnswer = clock.now();
    told = false;
  };
  const failed = (error: unknown) => {
    if (!noAnswer(error)) return answered();
    const silentMs = clock.now() - lastAnswer;
    if (silentMs < afterMs || told) return;
    told = true;
    const message = error instanceof Error ? error.message : String(error);
    onUnreachable(`the service gave no answer for ${Math.round(silentMs / 1000)} s (last: ${message})`);
  };
  const wrapped: Record<string, unknown> = {};
  for (const [group, operations] of Object.entries(client)) {
    if (typeof operations !== 'object' || operations === null) {
      wrapped[group] = operations;
      continue;
    }
    wrapped[group] = Object.fromEntries(
      Object.entries(operations as Record<string, (...args: unknown[]) => Promise<unknown>>).map(([name, call]) => [
        name,
        (...args: unknown[]) =>
          call(...args).then(
            (value) => (answered(), value),
            (error: unknown) => {
              failed(error);
              throw error;
            },
          ),
      ]),
    );
  }
  return wrapped as unknown as ServiceClient;
}
