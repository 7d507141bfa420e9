// Plans a 100,000-row CSV manifest: loadManifest (YAML, CSV, every request checked by the
// client's schema) then planManifest (keys, estimates, ordering). Prints time and peak RSS, in
// process, then runs the real CLI on it (`plan`, `plan --json > /dev/null`, `validate`) as child
// processes and prints each one's wall time and peak RSS.
// Targets (issue 4): under 3 s and under 300 MB. Figures only; no thresholds asserted.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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

const ms = (n) => `${Math.round(n)} ms`;
console.log(`rows: ${ROWS.toLocaleString('en-US')}, jobs planned: ${plan.totals.jobs.toLocaleString('en-US')}`);
console.log(`loadManifest: ${ms(loaded - started)}  planManifest: ${ms(planned - loaded)}  total: ${ms(planned - started)} (target < 3000 ms)`);
console.log(`peak RSS: ${Math.round(peak / 2 ** 20)} MB (target < 300 MB)`);
console.log(`expected credits: ${plan.totals.credits.expected.toLocaleString('en-US')}`);

// The CLI, as a user runs it. Peak RSS from GNU time where there is one; otherwise the child
// reports its own maximum resident set size (process.resourceUsage) on exit.
const CLI = fileURLToPath(new URL('../bin/reelpipe.js', import.meta.url));
const GNU_TIME = '/usr/bin/time';
const REPORT_RSS = "data:text/javascript,process.on('exit',()=>process.stderr.write('\\nmaxrss '+process.resourceUsage().maxRSS+'\\n'))";

function runCli(args, stdoutFile) {
  const out = openSync(stdoutFile, 'w');
  const rssFile = path.join(dir, 'rss.txt');
  const node = [process.execPath, ...(existsSync(GNU_TIME) ? [] : ['--import', REPORT_RSS]), CLI, ...args];
  const command = existsSync(GNU_TIME) ? [GNU_TIME, '-f', '%M', '-o', rssFile, ...node] : node;
  const begun = performance.now();
  const result = spawnSync(command[0], command.slice(1), { cwd: dir, stdio: ['ignore', out, 'pipe'], encoding: 'utf8', maxBuffer: 2 ** 26 });
  const wall = performance.now() - begun;
  closeSync(out);
  const kb = existsSync(GNU_TIME) ? Number(readFileSync(rssFile, 'utf8').trim().split('\n').at(-1)) : Number(/maxrss (\d+)/.exec(result.stderr)?.[1]);
  return { wall, mb: Math.round(kb / 1024), status: result.status };
}

console.log(`CLI (child processes; peak RSS from ${existsSync(GNU_TIME) ? 'GNU time' : 'process.resourceUsage'}):`);
for (const [label, args, stdout] of [
  ['plan FILE', ['plan', 'manifest.yaml'], path.join(dir, 'table.txt')],
  ['plan FILE --json > /dev/null', ['plan', 'manifest.yaml', '--json'], '/dev/null'],
  ['validate FILE', ['validate', 'manifest.yaml'], path.join(dir, 'ok.txt')],
]) {
  const { wall, mb, status } = runCli(args, stdout);
  console.log(`  ${label.padEnd(30)} ${ms(wall).padStart(8)}  peak RSS ${mb} MB  exit ${status}`);
}
rmSync(dir, { recursive: true, force: true });
