#!/usr/bin/env -S node --max-semi-space-size=4
// Thin launcher: the compiled CLI lives in dist/bundle/ (built by `npm ci` through the prepare script;
// rolldown.config.js says why it is bundled).
// Why --max-semi-space-size=4 on the first line: V8's young generation grows to 3 × 16 MB by
// default, and a long run keeps it full: a 10,000-job run peaked at 224–229 MB, and at 198 MB with
// 4 MB semi-spaces (211 MB with 8, 195 MB with 2 but 10 % more CPU). It must be a node option (it
// is fixed when the heap is made), so it rides on the shebang, which `reelpipe` as installed runs;
// `node bin/reelpipe.js` runs without it, and the benchmarks read it from here (bench/lib/service.js).
import { setFlagsFromString } from 'node:v8';

// Why: V8 sets its first old-generation limit while start-up allocates fast (modules, the plan),
// at up to 4× what is live; a long run then piles up hundreds of MB of garbage before its first
// full collection (387 MB at 10,000 jobs, for about 70 MB live). Growing the heap by half of what
// is live instead keeps the peak near what is live (docs/performance.md). Set before the CLI
// loads, so every collection follows it.
setFlagsFromString('--heap-growing-percent=50');
const { main } = await import('../dist/bundle/main.js');
process.exitCode = await main(process.argv.slice(2));
