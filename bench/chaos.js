#!/usr/bin/env node
// `npm run chaos`: a seeded soak proving reelpipe's money and durability promises under the
// hostile fault profile — 1,000 jobs, the runner SIGKILLed at random moments and the journalled
// sandbox SIGKILLed too, re-run until done — in polling mode, then webhook mode (--both). Prints
// every invariant PASS/FAIL with its figures; exits 1 if any failed. See docs/chaos.md.
import { rmSync, writeFileSync } from 'node:fs';
import { renderSoak } from './chaos/report.js';
import { USAGE, parseOptions } from './chaos/options.js';
import { recheck, runSoak } from './chaos/soak.js';

let options;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  console.error(`${error.message}\n${USAGE}`);
  process.exit(2);
}
if (options.help) {
  console.log(USAGE);
  process.exit(0);
}

const soaks = [];
if (options.recheck) {
  const soak = await recheck(options.recheck, options.capGiven ? { cap: options.maxCredits === 'plan' ? undefined : options.maxCredits } : {});
  console.log(renderSoak(soak));
  soaks.push(soak);
}
for (const mode of options.recheck ? [] : options.modes) {
  console.error(`chaos: ${mode} mode, ${options.jobs} jobs, seed ${options.seed}, ${options.kills} timed + ${options.pointKills} point kills, ${options.sandboxKills} sandbox kills`);
  const soak = await runSoak(options, mode);
  const failed = soak.rows.some((r) => r.verdict === 'FAIL');
  // A failed soak keeps its workspace (state, journal, outputs, every run's stderr) to look into.
  soak.kept = failed || options.keep;
  if (!soak.kept) rmSync(soak.dir, { recursive: true, force: true });
  console.log(renderSoak(soak));
  soaks.push(soak);
}

const allHeld = soaks.every((s) => s.rows.every((r) => r.verdict !== 'FAIL'));
console.log(`\n${allHeld ? 'every invariant held' : 'INVARIANTS FAILED'} (${soaks.map((s) => s.mode).join(', ')}; seed ${options.seed})`);
if (options.json) {
  const out = { options, held: allHeld, soaks: soaks.map(({ mode, rows, log, counts, doubt, wallMs, dir, kept }) => ({ mode, rows, log, counts, doubt, wallMs, dir: kept ? dir : null })) };
  writeFileSync(options.json, `${JSON.stringify(out, null, 2)}\n`);
}
process.exit(allHeld ? 0 : 1);
