import type { ReportData, ReportHead, ReportJob } from '../report-data.js';
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

/** The report as one self-contained HTML page, its jobs held (a small report, the tests). Pure: the data and options in, the text out. */
export function renderReport(data: ReportData, options: RenderOptions): string {
  const client = new ClientJobs(data.steps.map((s) => s.id));
  return `${pageHead(data, options)}${data.jobs.map((job) => client.json(job)).join(',')}${PAGE_TAIL}`;
}

/**
 * The page up to its jobs' data: every section, then the page's data opened (`{…,"jobs":[`).
 * Then come the jobs' data (ClientJobs, separated by commas) and PAGE_TAIL. Why in parts: the
 * jobs are written a window at a time as they are read, and what goes before them — totals,
 * steps, failures — is known only once every job has been read (write-report.ts).
 */
export function pageHead(head: ReportHead, options: RenderOptions): string {
  const data = jsonForScript({ base: options.outputsHref, now: head.generatedAt, steps: head.steps.map((s) => s.id), states: STATE_WORDS });
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<title>${h(head.name)} — reelpipe report</title><style>${STYLE}</style></head>
<body>${headerSection(head)}
<main>
${totalsSection(head)}
${budgetSection(head)}
${stepsSection(head, creditChart(head.steps))}
<section id="timeline-section"><h2>Timeline</h2>
<p class="muted">Each job from submitted to finished (coloured by state; faded while not finished), then to downloaded (grey). Hover for the job.</p>
<div class="timeline-wrap"><canvas id="timeline" height="40"></canvas></div></section>
${attentionSection(head)}
${onFinishSection(head)}
<section id="gallery"><h2>Outputs (${head.totals.outputs})</h2>
<div class="controls"><label>step <select id="filter-step"><option value="">all</option></select></label>
<label>state <select id="filter-state"><option value="">all</option></select></label>
<label>find <input id="filter-text" type="search" placeholder="words, label, row, key or file"></label>
<label><input id="filter-run" type="checkbox"> changed by ${head.run ? `run #${head.run.id}` : 'the last run'} only</label></div>
<div id="gallery-grid" class="grid"></div>
<div class="pager"><button id="page-prev" type="button">previous</button><span id="page-info"></span><button id="page-next" type="button">next</button></div>
<noscript><p>The gallery and the timeline need JavaScript; results.csv beside this file lists every output.</p></noscript></section>
${vocabularySection()}
<footer>results.csv and results.json beside this file list every job with its input row, state, credits and files.</footer>
</main>
<script type="application/json" id="report-data">${data.slice(0, -1)},"jobs":[`;
}

/** What closes the page after its jobs' data: the data's array and object, then the page's script. */
export const PAGE_TAIL = `]}</script>
<script>${CLIENT_SCRIPT}</script>
</body></html>
`;

/**
 * A job as the page's script reads it: short keys (100,000 jobs of them are read at every load),
 * as JSON safe in its script element. `steps`: the plan's step ids, in order (the page's data names them once).
 */
export class ClientJobs {
  private readonly stepIndex: Map<string, number>;
  private readonly stateIndex = new Map(STATE_WORDS.map((w, i) => [w, i]));

  constructor(steps: readonly string[]) {
    this.stepIndex = new Map(steps.map((s, i) => [s, i]));
  }

  json(j: ReportJob): string {
    const failed = j.items.length === 0 ? j.items : j.items.filter((i) => i.state === 'failed');
    return jsonForScript({
      k: j.key, l: j.label, s: this.stepIndex.get(j.step), st: this.stateIndex.get(j.state), o: j.origin,
      u: j.used, e: j.estimate?.expected ?? null, x: j.overHigh ? 1 : 0, r: j.inRun ? 1 : 0,
      t: [j.submittedAt, j.finishedAt, j.downloadedAt], f: j.outputs.map((o) => [o.path, o.media]),
      // Only when there are some: most jobs have neither.
      ...(failed.length ? { i: failed.map((i) => [i.item, i.reason ?? 'no reason given']) } : {}),
      ...(j.history.length ? { v: j.history.map((v) => [v.key, v.outputs.map((o) => o.path)]) } : {}),
      ...(j.words ? { w: j.words } : {}),
    });
  }
}
