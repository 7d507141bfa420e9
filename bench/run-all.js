#!/usr/bin/env node
// Runs every bench/*.bench.js in turn, each in its own process so peak memory is its own.
// Benchmarks print figures; they never fail on a threshold. `npm run bench -- NAME…` runs only
// the benchmarks whose file name contains one of the NAMEs; `--quick` runs each at a laptop's
// size (passed on to every benchmark). After a full run, docs/performance.md's tables are
// refilled from bench/results/ (update-docs.js).
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { machineLine } from './lib/results.js';
import { newScratch, removeScratch, SCRATCH_ENV } from './lib/scratch.js';

const dir = fileURLToPath(new URL('.', import.meta.url));
const args = process.argv.slice(2);
const flags = args.filter((arg) => arg.startsWith('--'));
const filters = args.filter((arg) => !arg.startsWith('--'));
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.bench.js') && (filters.length === 0 || filters.some((f) => name.includes(f))))
  .sort();

console.log(machineLine());
const failed = [];
const scratch = newScratch();
for (const file of files) {
  console.log(`\n## ${file}${flags.length ? ` ${flags.join(' ')}` : ''}`);
  try {
    execFileSync(process.execPath, ['--expose-gc', `${dir}${file}`, ...flags], { stdio: 'inherit', env: { ...process.env, [SCRATCH_ENV]: scratch } });
  } catch {
    // One benchmark that breaks must not cost the figures of the others; it is named at the end.
    failed.push(file);
  }
}
// Every benchmark's folders go together, after the last one (lib/scratch.js says why not sooner).
removeScratch(scratch);
if (files.length === 0) console.log(`no benchmark matches "${filters.join('", "')}"`);
// A full run's figures go into docs/performance.md (a quick run's never do).
if (!flags.includes('--quick') && files.length > 0) execFileSync(process.execPath, [`${dir}update-docs.js`], { stdio: 'inherit' });
if (failed.length > 0) {
  console.log(`\nthese benchmarks stopped with an error: ${failed.join(', ')}`);
  process.exitCode = 1;
}
