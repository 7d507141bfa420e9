import type { AccountView } from '../state/index.js';
import { formatCredits } from '../util/format.js';

/**
 * `reelpipe account show`: the account's limits and what counts against them, per manifest and in
 * total, as text and as JSON (times as ISO strings, credits as numbers). Pure: the view comes in
 * (state/account-sql.ts accountView), the text goes out.
 */

const iso = (ms: number): string => new Date(ms).toISOString();

export function accountText(view: AccountView, location: string): string {
  const { limits } = view;
  const lines = [`account (state: ${location})`];
  lines.push(`  concurrency  ${limits.concurrency === null ? 'no limit' : `${limits.concurrency} jobs alive at the service at once, across every manifest and host`}`);
  const period = limits.per === null ? '' : ` a ${limits.per} (this ${limits.per} from ${iso(view.since)}, UTC)`;
  lines.push(`  cap          ${limits.maxCredits === null ? 'no cap' : `${formatCredits(limits.maxCredits)} credits${period}`}`);
  lines.push(`  rate         ${limits.rate === null ? "each run's own" : `${limits.rate} requests a second, shared by the live runs`}`);
  lines.push(`  set          ${limits.updatedAt === null ? 'never (reelpipe account set)' : iso(limits.updatedAt)}`);
  lines.push('');
  const rows = [['manifest', 'spent', 'held', 'slots', 'live hosts'], ...view.manifests.map((m) => [m.manifest, formatCredits(m.spent), formatCredits(m.held), String(m.slots), m.hosts.join(', ') || '-'])];
  const { total } = view;
  rows.push(['total', formatCredits(total.spent), formatCredits(total.held), String(total.slots), total.hosts.join(', ') || '-']);
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  for (const row of rows) lines.push(`  ${row.map((cell, i) => (i === 0 || i === row.length - 1 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd()}`);
  const left = limits.maxCredits === null ? null : Math.max(0, limits.maxCredits - total.spent - total.held);
  if (left !== null) lines.push(`  ${formatCredits(left)} credits left under the cap${limits.per === null ? '' : ` this ${limits.per}`}`);
  if (view.doubtSlots.length > 0) {
    lines.push('', `slots held by jobs in doubt (each given back at the time shown, or when \`reelpipe resolve\` settles it):`);
    for (const slot of view.doubtSlots) lines.push(`  ${slot.manifest}  ${slot.key}  in doubt since ${iso(slot.since)}, given back at ${iso(slot.until)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The view as `account show --json` prints it. */
export function accountJson(view: AccountView, location: string): Record<string, unknown> {
  return {
    state: location,
    limits: { ...view.limits, updatedAt: view.limits.updatedAt === null ? null : iso(view.limits.updatedAt) },
    since: iso(view.since),
    at: iso(view.now),
    manifests: view.manifests,
    total: view.total,
    doubtSlots: view.doubtSlots.map((slot) => ({ ...slot, since: iso(slot.since), until: iso(slot.until) })),
  };
}
