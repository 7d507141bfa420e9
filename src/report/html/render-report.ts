import type { ReportData, ReportJob } from '../report-data.js';
import { STATE_WORDS } from '../../state/vocabulary.js';
import { creditChart } from './chart.js';
import { CLIENT_SCRIPT } from './client-script.js';
import { escapeHtml as h, jsonForScript } from './escape.js';
import { attentionSection, budgetSection, headerSection, onFinishSection, stepsSection, totalsSection, vocabularySection } from './sections.js';
import { STYLE } from './style.js';

export interface RenderOptions {
  /** The outputs folder as seen from the report's folder, ending in `/` (`../` for OUTPUTS/report/). */
  outputsHref: string;
}

/**
 * Policy: the page may load only what sits beside it — its own inline style and script, data:
 * images, and the outputs by relative address — and may send nothing anywhere. The CSP says so
 * to the browser, so neither a hostile label nor an HTML ad's content can make it reach out.
 */
const CSP = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src 'self' data:; media-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'none'";

/** The report as one self-contained HTML page. Pure: the data and options in, the text out. */
export function renderReport(data: ReportData, options: RenderOptions): string {
  return [...renderReportChunks(data, options)].join('');
}

/**
 * The report a part at a time, as it is written: the page, then its data a few hundred jobs at a
 * time, then its script. Why: at 100,000 jobs the data is 30 MB, and printing it whole, then
 * escaping it whole, made two copies of it at once.
 */
export function* renderReportChunks(data: ReportData, options: RenderOptions): Generator<string> {
  yield `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<title>${h(data.name)} — reelpipe report</title><style>${STYLE}</style></head>
<body>${headerSection(data)}
<main>
${totalsSection(data)}
${budgetSection(data)}
${stepsSection(data, creditChart(data.steps))}
<section id="timeline-section"><h2>Timeline</h2>
<p class="muted">Each job from submitted to finished (coloured by state; faded while not finished), then to downloaded (grey). Hover for the job.</p>
<div class="timeline-wrap"><canvas id="timeline" height="40"></canvas></div></section>
${attentionSection(data)}
${onFinishSection(data)}
<section id="gallery"><h2>Outputs (${data.totals.outputs})</h2>
<div class="controls"><label>step <select id="filter-step"><option value="">all</option></select></label>
<label>state <select id="filter-state"><option value="">all</option></select></label>
<label>find <input id="filter-text" type="search" placeholder="words, label, row, key or file"></label>
<label><input id="filter-run" type="checkbox"> changed by ${data.run ? `run #${data.run.id}` : 'the last run'} only</label></div>
<div id="gallery-grid" class="grid"></div>
<div class="pager"><button id="page-prev" type="button">previous</button><span id="page-info"></span><button id="page-next" type="button">next</button></div>
<noscript><p>The gallery and the timeline need JavaScript; results.csv beside this file lists every output.</p></noscript></section>
${vocabularySection()}
<footer>results.csv and results.json beside this file list every job with its input row, state, credits and files.</footer>
</main>
<script type="application/json" id="report-data">`;
  yield* clientData(data, options);
  yield `</script>
<script>${CLIENT_SCRIPT}</script>
</body></html>
`;
}

/** Jobs of the page's data printed together: one chunk of about 100 kB. */
const JOBS_A_CHUNK = 256;

/** What the page's script needs, in short keys (a 100,000 jobs of it are read at every load), as JSON safe in its script element. */
function* clientData(data: ReportData, options: RenderOptions): Generator<string> {
  const steps = data.steps.map((s) => s.id);
  const stepIndex = new Map(steps.map((s, i) => [s, i]));
  const stateIndex = new Map(STATE_WORDS.map((w, i) => [w, i]));
  const job = (j: ReportJob) => {
    const failed = j.items.filter((i) => i.state === 'failed');
    return {
      k: j.key, l: j.label, s: stepIndex.get(j.step), st: stateIndex.get(j.state), o: j.origin,
      u: j.used, e: j.estimate?.expected ?? null, x: j.overHigh ? 1 : 0, r: j.inRun ? 1 : 0,
      t: [j.submittedAt, j.finishedAt, j.downloadedAt], f: j.outputs.map((o) => [o.path, o.media]),
      // Only when there are some: most jobs have neither.
      ...(failed.length ? { i: failed.map((i) => [i.item, i.reason ?? 'no reason given']) } : {}),
      ...(j.history.length ? { v: j.history.map((v) => [v.key, v.outputs.map((o) => o.path)]) } : {}),
      ...(j.words ? { w: j.words } : {}),
    };
  };
  const head = jsonForScript({ base: options.outputsHref, now: data.generatedAt, steps, states: STATE_WORDS });
  // The head's object, open again for its jobs: `{…,"jobs":[` then the jobs, then `]}`.
  yield `${head.slice(0, -1)},"jobs":[`;
  for (let from = 0; from < data.jobs.length; from += JOBS_A_CHUNK) {
    const chunk = data.jobs.slice(from, from + JOBS_A_CHUNK).map((j) => jsonForScript(job(j))).join(',');
    yield from === 0 ? chunk : `,${chunk}`;
  }
  yield ']}';
}
