import { countsText } from '../state/vocabulary.js';
import { chargedText } from './credits.js';
import { plural } from '../util/format.js';
import { formatDuration, isoTime } from '../util/time-format.js';
import type { PastRun } from './run-history.js';

/** A run as listed, with what the CLI adds: its exit code (cli/exit-codes.ts) and its log file. */
export type ListedRun = PastRun & { exitCode: number | null; log: string };

/**
 * `reelpipe runs` for people: a header naming the manifest and database (and how many refused
 * starts are left out), then a line per run, newest first: id, host (each member of a run several
 * hosts shared has a line of its own), start (ISO, with the zone), end or
 * `running`/`died`/`refused`, how long, outcome and exit code, jobs per state at its end (for a
 * refused start, why), credits it counted.
 */
export function renderRuns(manifest: string, dbPath: string, runs: readonly ListedRun[], total: number, refusedHidden = 0): string {
  const hidden = refusedHidden === 0 ? '' : ` (${plural(refusedHidden, 'refused start')} hidden: --all shows them)`;
  const lines = [`${manifest} (state ${dbPath}): ${total === 0 ? 'no runs yet' : plural(total, 'run')}${hidden}`];
  if (runs.length === 0) return `${lines[0]}\n`;
  const rows = runs.map((run) => [
    String(run.id),
    run.host,
    isoTime(run.startedAt),
    run.finishedAt === null || run.state === 'refused' ? run.state : isoTime(run.finishedAt),
    run.finishedAt === null || run.state === 'refused' ? '' : formatDuration(run.finishedAt - run.startedAt),
    run.outcome ?? '—',
    run.exitCode === null ? '—' : String(run.exitCode),
    chargedText(run.credits),
    run.refusal ?? (run.jobs ? countsText(run.jobs) || 'no jobs' : '—'),
  ]);
  const header = ['RUN', 'HOST', 'STARTED', 'ENDED', 'TOOK', 'OUTCOME', 'EXIT', 'CHARGED', 'JOBS AT THE END'];
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => r[c]!.length)));
  for (const row of [header, ...rows]) lines.push(row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  '));
  if (total > runs.length) lines.push(`… and ${total - runs.length} older (--limit ${total} lists them all)`);
  lines.push('CHARGED: what the service charged for the jobs the run sent, net of refunds, however the run ended (the runs sum to status\'s credits used)');
  return `${lines.join('\n')}\n`;
}
