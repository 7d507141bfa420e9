// Tables printed by the benchmarks, as Markdown pipe tables: readable in a terminal, and pasted
// as they are into docs/performance.md.

/** A Markdown table, its columns padded to line up; cells are turned into text. */
export function markdownTable(headers, rows) {
  const text = [headers, ...rows].map((row) => row.map((cell) => String(cell ?? '').replaceAll('|', '\\|')));
  const widths = headers.map((_, col) => Math.max(3, ...text.map((row) => row[col]?.length ?? 0)));
  const line = (row) => `| ${widths.map((width, col) => (row[col] ?? '').padEnd(width)).join(' | ')} |`;
  const rule = `| ${widths.map((width) => '-'.repeat(width)).join(' | ')} |`;
  return [line(text[0]), rule, ...text.slice(1).map(line)].join('\n');
}

/** A number with `digits` decimals, or `–` for none. */
export function fixed(value, digits = 2) {
  return Number.isFinite(value) ? value.toFixed(digits) : '–';
}

/** `min / median` of a summary (see figures.js), each with `digits` decimals and a unit. */
export function minMedian(summary, digits = 2, unit = '') {
  if (summary.runs === 0) return '–';
  if (summary.runs === 1) return `${fixed(summary.median, digits)}${unit}`;
  return `${fixed(summary.min, digits)} / ${fixed(summary.median, digits)}${unit}`;
}
