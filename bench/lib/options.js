// A benchmark's command line: `--quick` for laptop sizes (also passed on by run-all.js).

/** Whether this benchmark runs at its quick size. */
export function isQuick(argv = process.argv.slice(2)) {
  return argv.includes('--quick');
}

/** The size for this invocation: `quick` with --quick, else `full`. */
export function sized(full, quick, argv = process.argv.slice(2)) {
  return isQuick(argv) ? quick : full;
}
