import type { ReportData, ReportJob, ReportOutput } from './report-data.js';
import { utcIsoOrNull as iso } from '../util/time-format.js';
import { knownOrNull } from './credits.js';
import { listAt, prettyAt, scalar as s } from './pretty-json.js';

/**
 * results.json: the manifest's figures, then one entry per job, from the input row it was made
 * from to what became of it. Printed as `JSON.stringify(whole, null, 2)` would print it
 * (pretty-json.ts), a job at a time: a 100,000-job file (90 MB) is never one string.
 */

/** results.json whole (for tests and small reports); writing goes through the chunks. */
export function resultsJson(data: ReportData): string {
  return [...resultsJsonChunks(data)].join('');
}

/** results.json a job at a time: the head's fields, then `"jobs": [` and each job indented under it. */
export function* resultsJsonChunks(data: ReportData): Generator<string> {
  const { used, apart, refunded } = data.totals;
  // The manifest's spend, every remote job it ever made (its jobs' figures below sum to part of it).
  const credits = { used: knownOrNull({ ...used }), unknownUsed: used.unknownJobs, apart, refunded };
  const head = { name: data.name, manifest: data.manifest, outputsDir: data.outputsDir, generatedAt: iso(data.generatedAt), run: data.run && { ...data.run, jobKeys: undefined }, credits };
  // Never empty (name is always there), so it ends in "\n}": the jobs go before that brace.
  yield `${JSON.stringify(head, null, 2).slice(0, -2)},\n  "jobs": [`;
  for (const [i, job] of data.jobs.entries()) yield `${i === 0 ? '\n    ' : ',\n    '}${jobJson(job)}`;
  yield data.jobs.length === 0 ? ']\n}\n' : '\n  ]\n}\n';
}

/** Where a job's fields are printed (inside `{ "jobs": [ { … } ] }`), and its fields' fields. */
const AT = '      ';
const IN = `${AT}  `;
const paths = (outputs: readonly ReportOutput[], indent: string) => listAt(outputs, indent, (o) => s(o.path));

/** One job as results.json prints it, its fields in this order. */
function jobJson(j: ReportJob): string {
  const e = j.estimate;
  return `{
${AT}"label": ${s(j.label)},
${AT}"key": ${s(j.key)},
${AT}"step": ${s(j.step)},
${AT}"kind": ${s(j.kind)},
${AT}"origin": ${s(j.origin)},
${AT}"row": ${prettyAt(j.row, AT) ?? 'null'},
${AT}"matrix": ${prettyAt(j.matrix, AT) ?? 'null'},
${AT}"state": ${s(j.state)},
${AT}"dbStatus": ${s(j.status)},
${AT}"remoteId": ${s(j.remoteId)},
${AT}"host": ${s(j.host)},
${AT}"credits": {
${IN}"estimated": ${s(e?.expected ?? null)},
${IN}"low": ${s(e?.low ?? null)},
${IN}"high": ${s(e?.high ?? null)},
${IN}"used": ${s(j.used)},
${IN}"overHighEstimate": ${j.overHigh}
${AT}},
${AT}"outputs": ${paths(j.outputs, AT)},
${AT}"reason": ${s(j.reason)},
${AT}"items": ${listAt(j.items, AT, (i, inner) => prettyAt({ item: i.item, state: i.state, reason: i.reason, refunded: i.refunded, refundDerived: i.refundDerived, output: i.path }, inner))},
${AT}"history": ${listAt(j.history, AT, (v, inner) => `{\n${inner}  "key": ${s(v.key)},\n${inner}  "creditsUsed": ${s(v.used)},\n${inner}  "outputs": ${paths(v.outputs, `${inner}  `)}\n${inner}}`)},
${AT}"hooks": ${listAt(j.hooks, AT, (h, inner) => prettyAt({ output: h.outputIdx, state: h.state, exitCode: h.exitCode, signal: h.signal, timedOut: h.timedOut, durationMs: h.durationMs, error: h.error }, inner))},
${AT}"attempts": ${listAt(j.attempts, AT, (a, inner) => prettyAt({ ...a, at: iso(a.at) }, inner))},
${AT}"submittedAt": ${s(iso(j.submittedAt))},
${AT}"finishedAt": ${s(iso(j.finishedAt))},
${AT}"downloadedAt": ${s(iso(j.downloadedAt))}
    }`;
}
