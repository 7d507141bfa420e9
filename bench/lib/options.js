// A benchmark's command line: `--quick` for laptop sizes (also passed on by run-all.js).

/** Whether this benchmark runs at its quick size. */
export function isQuick(argv = process.argv.slice(2)) {
  return argv.includes('--quick');
}

/** The size for this invocation: `quick` with --quick, else `full`. */
export function sized(full, quick, argv = process.argv.slice(2)) {
  return isQuick(argv) ? quick : full;
}

/** `--NAME a,b,c` as ['a', 'b', 'c'] (also `--NAME=a,b,c`); undefined when not given. */
export function listOption(name, argv = process.argv.slice(2)) {
  const at = argv.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  if (at < 0) return undefined;
  const value = argv[at].includes('=') ? argv[at].slice(argv[at].indexOf('=') + 1) : argv[at + 1];
  if (!value) throw new Error(`--${name} takes a comma-separated list`);
  return value.split(',').map((item) => item.trim()).filter(Boolean);
}

/** `--NAME N` (or `--NAME=N`) as a whole number above 0; `fallback` when not given. */
export function wholeOption(name, fallback, argv = process.argv.slice(2)) {
  const at = argv.findIndex((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
  if (at < 0) return fallback;
  const text = argv[at].includes('=') ? argv[at].slice(argv[at].indexOf('=') + 1) : argv[at + 1];
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name}: a whole number above 0, not ${text}`);
  return value;
}
