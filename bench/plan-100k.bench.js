// Plans a 100,000-row CSV manifest: loadManifest (YAML, CSV, every request checked by the
// client's schema) then planManifest (keys, estimates, ordering). Prints time and peak RSS.
// Targets (issue 4): under 3 s and under 300 MB. Figures only; no thresholds asserted.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setInterval, clearInterval } from 'node:timers';
import { loadManifest } from '../dist/manifest/index.js';
import { planManifest } from '../dist/plan/index.js';

const ROWS = 100_000;
const dir = mkdtempSync(path.join(tmpdir(), 'reelpipe-bench-'));
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
rmSync(dir, { recursive: true, force: true });

const ms = (n) => `${Math.round(n)} ms`;
console.log(`rows: ${ROWS.toLocaleString('en-US')}, jobs planned: ${plan.totals.jobs.toLocaleString('en-US')}`);
console.log(`loadManifest: ${ms(loaded - started)}  planManifest: ${ms(planned - loaded)}  total: ${ms(planned - started)} (target < 3000 ms)`);
console.log(`peak RSS: ${Math.round(peak / 2 ** 20)} MB (target < 300 MB)`);
console.log(`expected credits: ${plan.totals.credits.expected.toLocaleString('en-US')}`);
