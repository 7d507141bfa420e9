// Where a benchmark's figures go: printed, and written to bench/results/NAME.json (NAME.quick.json
// for --quick, so a laptop's quick run never overwrites the full suite's figures), with the
// machine they were measured on.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { measuredBy } from './measure-child.js';
import { isQuick } from './options.js';

export const RESULTS_DIR = fileURLToPath(new URL('../results/', import.meta.url));

/** The machine: cores, CPU model, memory, load, Node, and the commit measured. */
export function machine() {
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    // not a git checkout: the commit stays unknown
  }
  return {
    cores: os.availableParallelism(),
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memoryGb: Number((os.totalmem() / 2 ** 30).toFixed(1)),
    loadAverage: os.loadavg().map((n) => Number(n.toFixed(2))),
    node: process.version,
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    measuredBy,
    commit,
  };
}

/** One line naming the machine, printed above every benchmark's tables. */
export function machineLine(m = machine()) {
  return `machine: ${m.cores} cores (${m.cpu}), ${m.memoryGb} GB, load ${m.loadAverage.join(' ')}, node ${m.node}, commit ${m.commit}; CPU and memory by ${m.measuredBy}`;
}

/**
 * Prints each section (a title, a Markdown table) and writes them with `figures` to
 * bench/results/NAME(.quick).json, where bench/update-docs.js finds them for docs/performance.md.
 */
export function publish(name, sections, figures) {
  for (const { title, table } of sections) console.log(`\n${title}\n\n${table}`);
  console.log(`\nwritten: ${writeResults(name, isQuick(), { sections, ...figures })}`);
}

/** Writes bench/results/NAME(.quick).json; returns its path. */
function writeResults(name, quick, figures) {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const file = `${RESULTS_DIR}${name}${quick ? '.quick' : ''}.json`;
  writeFileSync(file, `${JSON.stringify({ name, quick, at: new Date().toISOString(), machine: machine(), ...figures }, null, 2)}\n`);
  return file;
}
