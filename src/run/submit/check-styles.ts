import type { ServiceClient } from '../../api/index.js';
import type { Plan } from '../../plan/index.js';
import { InvalidInputError } from '../../errors.js';
import type { RunEvents } from '../run-events.js';

/**
 * Planning is offline, so `style_ids` are checked at validate time against a snapshot of the
 * style catalogue (src/api/html-ad-styles.ts). Before anything at all is submitted, the live list
 * is read (a free read): a planned style the service does not offer would be refused with a 400
 * only after every other job was paid for, so the run is refused now (exit 2), naming the styles
 * and the ones the service accepts. Jobs already submitted are not checked: a finished manifest
 * re-runs without a single request. A list that cannot be read is a warning, not a refusal: the
 * snapshot already vouched for every id, and an unreachable service stops the run soon enough.
 */
export async function checkHtmlAdStyles(
  plan: Plan,
  client: ServiceClient,
  events: RunEvents,
  isUnsubmitted: (key: string) => boolean,
): Promise<void> {
  const planned = new Map<string, string>();
  for (const job of plan.jobs) {
    if (job.kind !== 'html_ads' || !isUnsubmitted(job.key) || !Array.isArray(job.request.style_ids)) continue;
    for (const id of job.request.style_ids) if (!planned.has(String(id))) planned.set(String(id), job.step);
  }
  if (planned.size === 0) return;
  let live: string[];
  try {
    live = (await client.htmlAds.styles()).map((style) => style.id);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    events.emit('run:note', { message: `warning: could not read the HTML ad styles (${reason}); style ids checked against the built-in catalogue only` });
    return;
  }
  const offered = new Set(live);
  const missing = [...planned].filter(([id]) => !offered.has(id)).sort(([a], [b]) => a.localeCompare(b));
  if (missing.length === 0) return;
  throw new InvalidInputError(
    missing.map(([id, step]) => ({ file: plan.manifestPath, path: `steps.${step}.with.style_ids`, message: `the service does not offer style '${id}' (accepted: ${live.join(', ')})` })),
    `${plan.name}: HTML ad styles the service does not offer; nothing was submitted`,
  );
}
