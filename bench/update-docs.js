#!/usr/bin/env node
// Refills docs/performance.md's tables from the full suite's results (bench/results/NAME.json;
// quick results are never documented). run-all.js calls it after a full run; by hand:
// `node bench/update-docs.js`. Prints which blocks it refilled.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderMachine, renderResults, renderTargets, replaceBlock } from './lib/docs-blocks.js';
import { RESULTS_DIR } from './lib/results.js';

const DOC = fileURLToPath(new URL('../docs/performance.md', import.meta.url));
const names = existsSync(RESULTS_DIR)
  ? readdirSync(RESULTS_DIR).filter((f) => f.endsWith('.json') && !f.endsWith('.quick.json')).map((f) => f.slice(0, -'.json'.length))
  : [];

/** The order the targets are listed in: the issue's, then the older benchmarks'. */
const ORDER = ['night-100k', 'side-by-side', 'default-rate', 'side-by-side-2k', 'rerun-10k', 'postgres', 'lipsync-batch', 'downloads-500', 'plan-100k', 'report-10k'];
const rank = (name) => (ORDER.includes(name) ? ORDER.indexOf(name) : ORDER.length);
const all = names
  .map((name) => JSON.parse(readFileSync(`${RESULTS_DIR}${name}.json`, 'utf8')))
  .filter((results) => results.sections)
  .sort((a, b) => rank(a.name) - rank(b.name));

let doc = readFileSync(DOC, 'utf8');
const refilled = [];
const latest = [...all].sort((a, b) => b.at.localeCompare(a.at))[0];
// The targets table lists every documented benchmark's: refilled only when each has its results
// here, so a checkout that ran some of them (`npm run bench -- NAME`) never drops the others' rows.
const documented = [...doc.matchAll(/<!-- bench:([\w-]+) -->/g)].map((m) => m[1]).filter((name) => name !== 'targets' && name !== 'machine');
const missing = documented.filter((name) => !all.some((r) => r.name === name));
const blocks = [...all.map((r) => [r.name, renderResults(r)]), ...(missing.length === 0 ? [['targets', renderTargets(all)]] : []), ...(latest ? [['machine', renderMachine(latest.machine)]] : [])];
for (const [name, body] of blocks) {
  const next = replaceBlock(doc, name, body);
  if (next === undefined) continue;
  doc = next;
  refilled.push(name);
}
writeFileSync(DOC, doc);
console.log(`docs/performance.md: ${refilled.length ? `refilled ${refilled.join(', ')}` : 'no full results to refill it with'}`);
if (missing.length > 0 && all.length > 0) console.log(`docs/performance.md: the targets table left as it was (no results here for ${missing.join(', ')}): add the new rows by hand, or run every benchmark`);
