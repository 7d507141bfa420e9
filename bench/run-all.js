#!/usr/bin/env node
// Runs every bench/*.bench.js in turn, each in its own process so peak memory is its own.
// Benchmarks print figures; they never fail on a threshold. `npm run bench -- NAME` runs only
// the benchmarks whose file name contains NAME.
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';

const dir = fileURLToPath(new URL('.', import.meta.url));
const filter = process.argv[2] ?? '';
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.bench.js') && name.includes(filter))
  .sort();

for (const file of files) {
  console.log(`\n## ${file}`);
  execFileSync(process.execPath, ['--expose-gc', `${dir}${file}`], { stdio: 'inherit' });
}
if (files.length === 0) console.log(`no benchmark matches "${filter}"`);
