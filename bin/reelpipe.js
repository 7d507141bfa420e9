#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm ci` through the prepare script).
import { setFlagsFromString } from 'node:v8';

// Why: V8 sets its first old-generation limit while start-up allocates fast (modules, the plan),
// at up to 4× what is live; a long run then piles up hundreds of MB of garbage before its first
// full collection (387 MB at 10,000 jobs, for about 70 MB live). Growing the heap by half of what
// is live instead keeps the peak near what is live (docs/performance.md). Set before the CLI
// loads, so every collection follows it.
setFlagsFromString('--heap-growing-percent=50');
const { main } = await import('../dist/cli/main.js');
process.exitCode = await main(process.argv.slice(2));
