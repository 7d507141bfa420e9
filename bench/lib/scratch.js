// Where benchmarks keep their folders, and when those go. Why not remove a run's folder as soon
// as it is measured: on ext4 without a journal (this machine's disk), creating a file skips, one
// by one, the inodes of files removed in the last ~40 s. Removing one client's 10,000 outputs made
// the next client's file creations pay for it: __ext4_new_inode took 10.6 % of a 2,000-job run's
// CPU started right after a removal, 0.8 % of one started 50 s later (perf record, 2026-11-25).
// So folders stay under one scratch folder, removed whole when the benchmarks end: by run-all
// after the last one, or by a benchmark run alone when it exits.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const ROOT = path.join(tmpdir(), 'reelpipe-bench-scratch');
/** Set by run-all for its benchmarks: it removes the scratch folder itself, after the last one. */
export const SCRATCH_OWNER_ENV = 'REELPIPE_BENCH_SCRATCH_OWNER';

let removeOnExit = false;

/** A fresh folder under the scratch folder, kept until the benchmarks end. */
export function scratchDir(prefix) {
  mkdirSync(ROOT, { recursive: true });
  if (!removeOnExit && process.env[SCRATCH_OWNER_ENV] !== 'run-all') {
    removeOnExit = true;
    process.on('exit', emptyScratch);
  }
  return mkdtempSync(path.join(ROOT, `${prefix}-`));
}

/** Removes the scratch folder and everything in it (a killed benchmark's leftovers too). */
export function emptyScratch() {
  rmSync(ROOT, { recursive: true, force: true });
}
