import { formatCredits } from '../../util/format.js';
import type { StepSummary } from '../report-data.js';
import { escapeHtml as h } from './escape.js';

/**
 * Credits per step drawn, not only tabulated: for each step a pale bar to the expected figure
 * with a tick at the high estimate, and below it the credits used — red when they passed the
 * high estimate. A step nobody prices has no estimate bar (never a zero-length one).
 */
const LABEL = 130;
const BARS = 420;
const ROW = 40;

export function creditChart(steps: readonly StepSummary[]): string {
  const scale = Math.max(0, ...steps.flatMap((s) => [s.estimate?.high ?? 0, s.used.known]));
  if (scale === 0 || steps.length === 0) return '';
  const x = (n: number) => Math.round((n / scale) * BARS * 10) / 10;
  const rows = steps.map((s, i) => {
    const y = 14 + i * ROW;
    const usedColour = s.estimate !== null && s.used.known > s.estimate.high + 1e-9 ? 'var(--over)' : 'var(--used)';
    const estimate = s.estimate === null
      ? `<text x="${LABEL}" y="${y + 10}" class="muted">estimate unknown</text>`
      : `<rect x="${LABEL}" y="${y}" width="${x(s.estimate.expected)}" height="12" fill="#c9d8f5"><title>expected ${formatCredits(s.estimate.expected)}</title></rect>
<line x1="${LABEL + x(s.estimate.high)}" x2="${LABEL + x(s.estimate.high)}" y1="${y - 2}" y2="${y + 14}" stroke="#2f6fdf" stroke-width="2"><title>high ${formatCredits(s.estimate.high)}</title></line>`;
    const figures = `${s.estimate ? formatCredits(s.estimate.expected) : '?'} est. / ${formatCredits(s.used.known)}${s.used.unknownJobs ? '+?' : ''} used`;
    return `<text x="0" y="${y + 16}">${h(s.id)}</text>${estimate}
<rect x="${LABEL}" y="${y + 15}" width="${x(s.used.known)}" height="12" fill="${usedColour}"><title>used ${formatCredits(s.used.known)}</title></rect>
<text x="${LABEL + BARS + 12}" y="${y + 16}">${figures}</text>`;
  });
  const height = 14 + steps.length * ROW;
  return `<figure><svg class="chart" role="img" aria-label="credits per step, estimated and used" width="${LABEL + BARS + 200}" height="${height}"
 viewBox="0 0 ${LABEL + BARS + 200} ${height}">${rows.join('\n')}</svg>
<figcaption class="legend"><span><i style="background:#c9d8f5"></i>expected</span><span><i style="background:#2f6fdf;width:3px"></i>high estimate</span>
<span><i style="background:var(--used)"></i>used</span><span><i style="background:var(--over)"></i>used, over the high estimate</span></figcaption></figure>`;
}
