import { hostname } from 'node:os';

/**
 * This host's name, as runs, locks and reports record it: `REELPIPE_HOST` when set (a container's
 * hostname is often random; cron hosts are better named `cron-1`, `cron-2`), else the machine's
 * hostname. Every place that records this host or asks "is that row this host's?" uses it, so a
 * name given is the name compared. Read from the process's environment at each call.
 */
export function thisHost(env: NodeJS.ProcessEnv = process.env): string {
  return env.REELPIPE_HOST?.trim() || hostname();
}
