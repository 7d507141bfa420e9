import type { ServiceClient } from '../api/index.js';
import type { Plan } from '../plan/index.js';
import type { RunEvents } from './run-events.js';

/**
 * Planning is offline, so `style_ids: all` expands to a snapshot of the style catalogue
 * (src/api/html-ad-styles.ts). Before HTML ads are submitted, the live list is read (a free read)
 * and every planned style the service does not offer is announced, so an operator sees up front
 * why those jobs will be refused instead of finding out job by job. Jobs already submitted are
 * not checked: a finished manifest re-runs without a single request.
 * Returns the style ids the service does not list.
 */
export async function checkHtmlAdStyles(
  plan: Plan,
  client: ServiceClient,
  events: RunEvents,
  isUnsubmitted: (key: string) => boolean,
): Promise<string[]> {
  const planned = new Set(
    plan.jobs
      .filter((job) => job.kind === 'html_ads' && isUnsubmitted(job.key))
      .flatMap((job) => (Array.isArray(job.request.style_ids) ? job.request.style_ids.map(String) : [])),
  );
  if (planned.size === 0) return [];
  let live: Set<string>;
  try {
    live = new Set((await client.htmlAds.styles()).map((style) => style.id));
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    events.emit('run:note', { message: `warning: could not read the HTML ad styles (${reason}); style ids not checked` });
    return [];
  }
  const missing = [...planned].filter((id) => !live.has(id)).sort();
  if (missing.length > 0) {
    const s = missing.length === 1 ? '' : 's';
    events.emit('run:note', {
      message: `warning: the service does not list HTML ad style${s} ${missing.join(', ')}; jobs using ${missing.length === 1 ? 'it' : 'them'} will likely be refused`,
    });
  }
  return missing;
}
