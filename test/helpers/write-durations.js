// Writes file-durations.json (slow-files-first.ts) from a vitest JSON report: each test file's
// wall time in seconds (to a tenth), by path from the repository's root. Usage: node write-durations.js REPORT
import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';

const report = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const root = new URL('../../', import.meta.url).pathname;
const seconds = Object.fromEntries(
  report.testResults
    .map((file) => [relative(root, file.name), Math.round((file.endTime - file.startTime) / 100) / 10])
    .sort(([a], [b]) => (a < b ? -1 : 1)),
);
writeFileSync(new URL('./file-durations.json', import.meta.url), `${JSON.stringify(seconds, null, 2)}\n`);
