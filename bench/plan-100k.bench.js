// Plans a 100,000-row CSV manifest: loadManifest (YAML, CSV, every request checked by the
// client's schema) then planManifest (keys, estimates, ordering). Prints time and peak RSS, in
// process, then runs the real CLI on it (`plan`, `plan --json > /dev/null`, `validate`) as child
// processes and prints each one's wall time and peak RSS.
// Targets (issue 4): under 3 s and under 300 MB. Writes bench/results/plan-100k.json.
// Figures only; no thresholds asserted.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setInterval, clearInterval } from 'node:timers';
import { loadManifest } from '../dist/manifest/index.js';
import { planManifest } from '../dist/plan/index.js';
import { summarise } from './lib/figures.js';
import { measuredBy, runMeasured } from './lib/measure-child.js';
import { publish } from './lib/results.js';
import { CLI_NODE_ARGS } from './lib/service.js';
import { markdownTable } from './lib/table.js';
import { atMost, TARGET_HEADERS, targetRows } from './lib/targets.js';
import { scratchDir } from './lib/scratch.js';

const ROWS = 100_000;
const dir = scratchDir('plan');
const ratios = ['9x16', '16x9', '1x1'];
const lines = ['sku,script,ratio'];
for (let i = 0; i < ROWS; i++) {
  lines.push(`SKU-${i},"Meet product ${i}: light, fast and made to last. Order today, ship tomorrow.",${ratios[i % 3]}`);
}
writeFileSync(path.join(dir, 'rows.csv'), `${lines.join('\n')}\n`);
writeFileSync(
  path.join(dir, 'manifest.yaml'),
  `version: 1
name: bench
steps:
  - id: shorts
    kind: ai_short
    for_each: { csv: rows.csv }
    name: "{{ row.sku }}"
    with:
      script: "{{ row.script }}"
      aspect_ratio: "{{ row.ratio }}"
      style: Cinematic
      caption_setting: { style: neo, font_family: Poppins }
`,
);

let peak = process.memoryUsage().rss;
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
globalThis.gc?.();
const started = performance.now();
const manifest = await loadManifest(path.join(dir, 'manifest.yaml'), { env: {} });
const loaded = performance.now();
const plan = planManifest(manifest);
const planned = performance.now();
clearInterval(sampler);
peak = Math.max(peak, process.memoryUsage().rss);

const ms = (n) => `${Math.round(n)} ms`;
console.log(`rows: ${ROWS.toLocaleString('en-US')}, jobs planned: ${plan.totals.jobs.toLocaleString('en-US')}`);
console.log(`loadManifest: ${ms(loaded - started)}  planManifest: ${ms(planned - loaded)}  total: ${ms(planned - started)} (target < 3000 ms)`);
console.log(`peak RSS: ${Math.round(peak / 2 ** 20)} MB (target < 300 MB)`);
console.log(`expected credits: ${plan.totals.credits.expected.toLocaleString('en-US')}`);

// The CLI, as a user runs it, each a child process measured as every benchmark measures one.
console.log(`CLI (child processes; peak RSS by ${measuredBy}):`);
const cli = {};
for (const [label, args, stdout] of [
  ['plan FILE', ['plan', 'manifest.yaml'], path.join(dir, 'table.txt')],
  ['plan FILE --json > /dev/null', ['plan', 'manifest.yaml', '--json'], '/dev/null'],
  ['validate FILE', ['validate', 'manifest.yaml'], path.join(dir, 'ok.txt')],
]) {
  const { wallMs, peakMb, exit } = await runMeasured([...CLI_NODE_ARGS, ...args], { cwd: dir, stdoutFile: stdout });
  cli[label] = { wallMs, peakMb, exit };
  console.log(`  ${label.padEnd(30)} ${ms(wallMs).padStart(8)}  peak RSS ${Math.round(peakMb)} MB  exit ${exit}`);
}

const one = (value) => summarise([value]);
const targets = [
  atMost('plan 100,000 rows in process (load + plan)', one((planned - started) / 1000), 3, { unit: ' s' }),
  atMost('peak memory in process', one(peak / 2 ** 20), 300, { digits: 0, unit: ' MB' }),
];
const figures = markdownTable(['planning 100,000 rows', 'wall', 'peak memory (RSS)'], [
  ['in process: loadManifest + planManifest', ms(planned - started), `${Math.round(peak / 2 ** 20)} MB`],
  ...Object.entries(cli).map(([label, f]) => [`\`reelpipe ${label}\` (child process)`, ms(f.wallMs), `${Math.round(f.peakMb)} MB`]),
]);
publish('plan-100k', [
  { title: 'planning 100,000 rows', table: figures },
  { title: 'targets (issue 4)', table: markdownTable(TARGET_HEADERS, targetRows(targets)) },
], { settings: { rows: ROWS }, inProcess: { loadMs: loaded - started, planMs: planned - loaded, peakMb: peak / 2 ** 20, jobs: plan.totals.jobs }, cli, targets });
