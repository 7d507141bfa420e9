import { formatCredits, plural } from '../../util/format.js';
import type { RunWork } from '../../state/index.js';
import { apartParts } from '../../plan/budget.js';
import { chargedText, creditsText } from '../credits.js';
import { attemptText, refundText } from '../status-report.js';
import type { ReportHead, ReportJob, StepSummary } from '../report-data.js';
import { NEEDS_ATTENTION, STATE_WORDS, VOCABULARY, type StateWord } from '../../state/vocabulary.js';
import { escapeHtml as h } from './escape.js';
import { hookOutcomeText, type HookFacts } from '../hook-facts.js';
import { utcIso } from '../../util/time-format.js';

/** The report's server-rendered sections: each a pure function of the data, every text escaped. */

const when = (ms: number | null) => (ms === null ? '—' : `${utcIso(ms).replace('T', ' ').slice(0, 19)} UTC`);
const seconds = (s: number | null) => (s === null ? '—' : s < 90 ? `${s.toFixed(1)} s` : `${(s / 60).toFixed(1)} min`);
export const badge = (state: StateWord) => `<span class="badge ${state.replace(' ', '-')}">${h(state)}</span>`;
const estimateText = (e: StepSummary['estimate'], unknown: number, jobs: number) =>
  e === null ? (jobs === 0 ? '0' : 'unknown') : `${formatCredits(e.expected)}${unknown ? ' + unknown' : ''} <span class="muted">(${formatCredits(e.low)}–${formatCredits(e.high)})</span>`;

export function headerSection(d: ReportHead): string {
  const run = d.run
    ? `run #${d.run.id}: started ${when(d.run.startedAt)}, ${d.run.finishedAt === null ? 'not finished' : `finished ${when(d.run.finishedAt)}`}, outcome ${h(d.run.outcome ?? 'none recorded')}`
    : 'no run recorded yet';
  const work = lastWorkText(d.lastWork);
  // A run several hosts shared names them, each with the jobs it sent and where it stands.
  const hosts = d.hosts.length > 1 ? `<p id="hosts">hosts of the run: ${d.hosts.map((m) => `${h(m.host)} (${m.jobs} job${m.jobs === 1 ? '' : 's'}, ${m.state})`).join(' · ')}</p>` : '';
  return `<header class="top"><h1>${h(d.name)} — reelpipe report</h1>
<p>manifest ${h(d.manifest)} · state ${h(d.stateDb)}</p><p>${run} · report made ${when(d.generatedAt)}</p>${work ? `<p id="last-work">${work}</p>` : ''}${hosts}</header>`;
}

/**
 * Which run last did work — changed a job — or that the newest run did nothing (a run of a
 * manifest already done), and which did before it: `the last run did nothing (run #8, started …);
 * the latest that did work: run #7, started …, changed 9 jobs`. Empty before any run.
 */
function lastWorkText({ newest, worked }: ReportHead['lastWork']): string {
  if (newest === null) return '';
  const did = (r: RunWork) => `run #${r.id}, started ${when(r.startedAt)}, changed ${plural(r.jobs, 'job')}`;
  if (newest.jobs > 0) return `latest run that did work: ${did(newest)}`;
  const before = worked === null ? 'no run has changed a job yet' : `the latest that did work: ${did(worked)}`;
  return `the last run did nothing (run #${newest.id}, started ${when(newest.startedAt)}); ${before}`;
}

export function totalsSection(d: ReportHead): string {
  const t = d.totals;
  const tile = (value: string, what: string, bad = false) => `<div class="tile${bad ? ' bad' : ''}"><b>${value}</b><span>${h(what)}</span></div>`;
  const states = STATE_WORDS.filter((w) => t.counts[w]).map((w) => tile(String(t.counts[w]), w, NEEDS_ATTENTION.includes(w)));
  return `<section id="totals"><h2>Totals</h2><div class="tiles">
${tile(String(t.jobs), 'jobs')}${states.join('')}${tile(String(t.outputs), 'outputs')}
${tile(h(creditsText(t.used)), 'credits used')}${tile(estimateText(t.estimate, t.unknownEstimates, t.jobs), 'credits estimated')}
${tile(String(t.overHigh), 'jobs over their high estimate', t.overHigh > 0)}</div></section>`;
}

export function budgetSection(d: ReportHead): string {
  const cap = d.maxCredits;
  const expected = d.totals.estimate?.expected ?? null;
  const used = d.totals.used.known;
  const figures = [
    cap === null ? 'no cap set' : `cap ${formatCredits(cap)}`,
    `expected ${expected === null ? 'unknown' : formatCredits(expected)}${share(expected, cap)}`,
    `high ${d.totals.estimate ? formatCredits(d.totals.estimate.high) : 'unknown'}`,
    `used ${h(creditsText(d.totals.used))}${share(used, cap)}`,
  ];
  const apart = apartParts(d.totals.apart);
  if (apart.length) figures.push(`of what was used: ${apart.join(', ')}`);
  if (d.totals.refunded.total > 0) figures.push(`refunded ${formatCredits(d.totals.refunded.total)}${d.totals.refunded.derived > 0 ? ' (derived from the price rule for failed items)' : ''}`);
  if (d.run) figures.push(`charged for run #${d.run.id}'s requests: ${h(chargedText(d.run.credits))}`);
  const over = cap !== null && used > cap + 1e-9 ? `<p class="over">used is over the cap by ${formatCredits(used - cap)} credits</p>` : '';
  const bar = cap === null ? '' : `<div class="budget-bar" title="used against the cap">
<i style="width:${pct(expected ?? 0, cap)}%;background:#c9d8f5"></i><i style="width:${pct(used, cap)}%;background:var(--used)"></i></div>`;
  return `<section id="budget"><h2>Budget</h2><p>${figures.join(' · ')}</p>${bar}${over}</section>`;
}

const pct = (n: number, of: number) => (of <= 0 ? 0 : Math.min(100, Math.round((n / of) * 1000) / 10));
const share = (n: number | null, cap: number | null) => (n === null || cap === null || cap <= 0 ? '' : ` (${Math.round((n / cap) * 100)}%)`);

export function stepsSection(d: ReportHead, chart: string): string {
  const rows = d.steps.map((s) => `<tr><td>${h(s.id)}</td><td>${h(s.kind)}</td><td class="n">${s.jobs}</td>
<td>${STATE_WORDS.filter((w) => s.counts[w]).map((w) => `${s.counts[w]} ${badge(w)}`).join(' ')}</td>
<td class="n">${estimateText(s.estimate, s.unknownEstimates, s.jobs)}</td><td class="n">${h(creditsText(s.used))}</td>
<td class="n${s.overHigh ? ' over' : ''}">${s.overHigh ? `${s.overHigh} over` : '—'}</td><td class="n">${seconds(s.medianSeconds)}</td></tr>`);
  return `<section id="steps"><h2>Credits and time per step</h2>
<table><thead><tr><th>step</th><th>kind</th><th class="n">jobs</th><th>states</th><th class="n">estimated (low–high)</th>
<th class="n">used</th><th class="n">over the high estimate</th><th class="n">median submitted → finished</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table>${chart}</section>`;
}

/** The jobs needing a person (report-tally.ts): the first of them in full, and how many more results.csv lists. */
export function attentionSection(d: ReportHead): string {
  const { jobs, count } = d.attention;
  const items = jobs.map((j) => attentionItem(j, d.manifest));
  const more = count > jobs.length ? `<p>… and ${count - jobs.length} more: results.csv lists every job.</p>` : '';
  const body = count === 0 ? '<p>No job failed, was refused or is in doubt.</p>' : `<ul class="attention">${items.join('\n')}</ul>${more}`;
  return `<section id="failures"><h2>Failures and jobs in doubt (${count})</h2>${body}</section>`;
}

function attentionItem(j: ReportJob, manifest: string): string {
  const remote = `${j.remoteId ? ` · remote id ${h(j.remoteId)}` : ''}${j.host ? ` · host ${h(j.host)}` : ''}`;
  const failedItems = j.items.filter((i) => i.state === 'failed').length;
  const reason = j.reason ?? (j.state === 'finished' ? 'its files are not all downloaded' : j.state === 'partly failed' ? `${failedItems} of its ${j.items.length} items failed` : 'no reason given');
  return `<li>${badge(j.state)} <b>${h(j.label)}</b> <span class="muted">${h(j.key)}${j.origin ? ` · ${h(j.origin)}` : ''}${remote}</span>
<span class="why">reason: ${h(reason)}</span>${j.items.filter((i) => i.state === 'failed').map(failedItem).join('')}${j.attempts.length > 1 ? j.attempts.map((a, i) => `<span class="why item">${h(attemptText(a, i))}</span>`).join('') : ''}<span class="why">what to do: ${h(VOCABULARY[j.state].next.replaceAll('MANIFEST', manifest))}</span>${j.hooks.filter((x) => x.state !== 'ok').map(hookItem).join('')}</li>`;
}

/** One failed item of a job (an HTML ad's style): why, and what was refunded. */
function failedItem(i: ReportJob['items'][number]): string {
  return `<span class="why item">${h(i.item)} failed: ${h((i.reason ?? 'no reason given').replace(/\.$/, ''))}${h(refundText(i))}</span>`;
}

/** A hook that did not succeed: how it ended, what it ran, and the end of what it printed. */
function hookItem(x: HookFacts): string {
  const tail = (x.stderrTail || x.stdoutTail).trimEnd();
  return `<span class="why">on_output hook, file ${x.outputIdx ?? 0}: ${h(hookOutcomeText(x))} · <code>${h(JSON.stringify(x.argv))}</code></span>${tail ? `<pre class="hook-tail">${h(tail)}</pre>` : ''}`;
}

/** The newest on_finish hook run, when the manifest has one (this run's own runs after the report is written). */
export function onFinishSection(d: ReportHead): string {
  const x = d.onFinish;
  if (!x) return '';
  const tail = x.state === 'ok' ? '' : (x.stderrTail || x.stdoutTail).trimEnd();
  return `<section id="on-finish"><h2>on_finish hook</h2><p>run #${x.runId ?? '?'}: ${h(hookOutcomeText(x))} · <code>${h(JSON.stringify(x.argv))}</code></p>${tail ? `<pre class="hook-tail">${h(tail)}</pre>` : ''}</section>`;
}

export function vocabularySection(): string {
  const rows = STATE_WORDS.map((w) => `<tr><td>${badge(w)}</td><td>${h(VOCABULARY[w].meaning)}</td><td>${h(VOCABULARY[w].next)}</td></tr>`);
  return `<section id="states"><h2>What the states mean</h2><table><thead><tr><th>state</th><th>meaning</th><th>next</th></tr></thead>
<tbody>${rows.join('\n')}</tbody></table></section>`;
}
