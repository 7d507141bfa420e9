// Where benchmarks keep their folders, and when those go. Why not remove a run's folder as soon
// as it is measured: on ext4 without a journal (this machine's disk), creating a file skips, one
// by one, the inodes of files removed in the last ~40 s. Removing one client's 10,000 outputs made
// the next client's file creations pay for it: __ext4_new_inode took 10.6 % of a 2,000-job run's
// CPU started right after a removal, 0.8 % of one started 50 s later (perf record, 2026-11-25).
// So folders stay under one scratch folder of this invocation, removed whole when the benchmarks
// end: by run-all after the last one (it hands its folder to each benchmark in SCRATCH_ENV), or
// by a benchmark run alone when it exits. Two invocations at once never share one.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** Set by run-all for its benchmarks: the scratch folder it made, and removes after the last one. */
export const SCRATCH_ENV = 'REELPIPE_BENCH_SCRATCH';

let own = null;

/** The scratch folder: run-all's, else one made for this process and removed when it exits. */
function root() {
  if (process.env[SCRATCH_ENV]) return process.env[SCRATCH_ENV];
  if (own === null) {
    own = newScratch();
    process.on('exit', () => removeScratch(own));
  }
  return own;
}

/** A new, empty scratch folder. */
export function newScratch() {
  return mkdtempSync(path.join(tmpdir(), 'reelpipe-bench-scratch-'));
}

/** A fresh folder in the scratch folder, kept until the benchmarks end. */
export function scratchDir(prefix) {
  return mkdtempSync(path.join(root(), `${prefix}-`));
}

/** Removes a scratch folder and everything in it. */
export function removeScratch(dir) {
  rmSync(dir, { recursive: true, force: true });
}
