// The scale curve as a small hand-made SVG (no chart library): one panel per figure, jobs on a
// logarithmic x axis, the measured points joined (a line per series, e.g. per client), a dashed line
// at the target where there is one.

const PANEL = { width: 320, height: 260, left: 56, right: 16, top: 40, bottom: 44 };

const escape = (text) => String(text).replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]);

/** 1,000 → "1k", 50,000 → "50k", 500 → "500". */
export function jobsLabel(jobs) {
  return jobs >= 1000 && jobs % 1000 === 0 ? `${jobs / 1000}k` : String(jobs);
}

/** A round top for an axis holding `value`: 1, 2 or 5 times a power of ten. */
export function niceCeiling(value) {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  return [1, 2, 5, 10].map((m) => m * power).find((top) => top >= value);
}

/** Gridlines for an axis topped at niceCeiling: 1 and 5 split in fifths, 2 in quarters (round labels). */
export function axisSteps(top) {
  const leading = Math.round(top / 10 ** Math.floor(Math.log10(top)));
  return leading === 2 ? 4 : 5;
}

/** Series colours, in order: a client per colour. */
const COLOURS = ['#2c6fbb', '#c67c00', '#2e8b57', '#8e44ad'];

function panel(series, spec, index) {
  const x0 = index * PANEL.width + PANEL.left;
  const plotW = PANEL.width - PANEL.left - PANEL.right;
  const plotH = PANEL.height - PANEL.top - PANEL.bottom;
  const yBottom = PANEL.top + plotH;
  const all = series.flatMap((s) => s.points);
  const values = all.map((p) => p[spec.key]);
  const top = niceCeiling(Math.max(...values.filter(Number.isFinite), spec.target ?? 0) * 1.15);
  const logs = all.map((p) => Math.log10(p.jobs));
  const [lo, hi] = [Math.min(...logs), Math.max(...logs)];
  const xOf = (jobs) => x0 + (hi === lo ? plotW / 2 : ((Math.log10(jobs) - lo) / (hi - lo)) * plotW * 0.9 + plotW * 0.05);
  const yOf = (value) => yBottom - (value / top) * plotH;
  const parts = [`<text x="${x0 + plotW / 2}" y="22" text-anchor="middle" font-weight="bold">${escape(`${spec.title} (${spec.unit})`)}</text>`];
  const steps = axisSteps(top);
  for (let i = 0; i <= steps; i++) {
    const value = (top * i) / steps;
    parts.push(`<line x1="${x0}" x2="${x0 + plotW}" y1="${yOf(value)}" y2="${yOf(value)}" stroke="#ddd"/>`);
    parts.push(`<text x="${x0 - 6}" y="${yOf(value) + 4}" text-anchor="end">${escape(Number(value.toPrecision(3)))}</text>`);
  }
  parts.push(`<line x1="${x0}" x2="${x0}" y1="${PANEL.top}" y2="${yBottom}" stroke="#333"/>`);
  parts.push(`<line x1="${x0}" x2="${x0 + plotW}" y1="${yBottom}" y2="${yBottom}" stroke="#333"/>`);
  if (spec.target !== undefined) {
    parts.push(`<line class="target" x1="${x0}" x2="${x0 + plotW}" y1="${yOf(spec.target)}" y2="${yOf(spec.target)}" stroke="#c0392b" stroke-dasharray="6 4"/>`);
    parts.push(`<text x="${x0 + plotW}" y="${yOf(spec.target) - 5}" text-anchor="end" fill="#c0392b">${escape(`target ${spec.target} ${spec.unit}`)}</text>`);
  }
  series.forEach(({ points }, i) => {
    const colour = COLOURS[i % COLOURS.length];
    const drawn = points.filter((p) => Number.isFinite(p[spec.key]));
    parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${drawn.map((p) => `${xOf(p.jobs)},${yOf(p[spec.key])}`).join(' ')}"/>`);
    for (const p of drawn) {
      parts.push(`<circle cx="${xOf(p.jobs)}" cy="${yOf(p[spec.key])}" r="4" fill="${colour}"/>`);
      // With several series the values would overlap: only the first series is labelled.
      if (i === 0) parts.push(`<text x="${xOf(p.jobs)}" y="${yOf(p[spec.key]) - 9}" text-anchor="middle">${escape(p[spec.key].toFixed(spec.digits))}</text>`);
    }
  });
  for (const jobs of new Set(all.map((p) => p.jobs))) parts.push(`<text x="${xOf(jobs)}" y="${yBottom + 18}" text-anchor="middle">${escape(jobsLabel(jobs))}</text>`);
  parts.push(`<text x="${x0 + plotW / 2}" y="${yBottom + 36}" text-anchor="middle">jobs (log scale)</text>`);
  return parts.join('\n  ');
}

/**
 * The SVG of the chart: a panel per figure of `panels` ({ key, title, unit, digits, target? }: the
 * points' field drawn, its title, unit and decimals, and the target's dashed line if any), a line
 * per series ({ name, points }: points { jobs, …figures } in increasing `jobs`; a colour each, named
 * in a legend when there are several); `caption` is written under the panels (what was measured,
 * where, when).
 */
export function seriesChartSvg(series, panels, caption) {
  const width = PANEL.width * panels.length;
  const legend = series.length < 2 ? 0 : 20;
  const height = PANEL.height + 24 + legend;
  const names = series.map((s, i) => `<text x="${16 + i * 190}" y="${PANEL.height + 14}" fill="${COLOURS[i % COLOURS.length]}" class="legend">■ ${escape(s.name)}</text>`);
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">
  <rect width="100%" height="100%" fill="#fff"/>
  ${panels.map((spec, i) => panel(series, spec, i)).join('\n  ')}
  ${legend ? names.join('\n  ') : ''}
  <text x="${width / 2}" y="${height - 6}" text-anchor="middle" fill="#555">${escape(caption)}</text>
</svg>
`;
}
