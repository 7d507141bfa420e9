import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { parseGnuTime, parseResourceUsage, runMeasured } from '../../bench/lib/measure-child.js';

const REPORT = `	Command being timed: "node x.js"
	User time (seconds): 6.97
	System time (seconds): 1.92
	Percent of CPU this job got: 40%
	Elapsed (wall clock) time (h:mm:ss or m:ss): 0:22.21
	Maximum resident set size (kbytes): 164612
	Exit status: 4
`;

describe('reading what GNU time reports', () => {
  test('CPU is user + system, memory the peak resident set, and the exit status', () => {
    const figures = parseGnuTime(`{"level":40,"msg":"a warning the child wrote"}\n${REPORT}`);
    expect(figures.cpuMs).toBeCloseTo(8890, 6);
    expect(figures.peakMb).toBeCloseTo(164612 / 1024, 6);
    expect(figures.exit).toBe(4);
  });

  test('a child killed by a signal says which', () => {
    expect(parseGnuTime(`\tCommand terminated by signal 9\n${REPORT}`).exit).toBe('signal 9');
  });

  test('process.resourceUsage figures (µs, kB) read the same way', () => {
    expect(parseResourceUsage({ userCPUTime: 1_500_000, systemCPUTime: 500_000, maxRSS: 2048 })).toEqual({ cpuMs: 2000, peakMb: 2 });
  });
});

describe('measuring a real child', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'reelpipe-measure-child-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('its stdout goes to the file, its exit status comes back, and its memory is its own', async () => {
    // The child holds 150 MB; the test process does not, so a peak above 150 MB is the child's.
    writeFileSync(path.join(dir, 'child.mjs'), 'const b = Buffer.alloc(150 * 2 ** 20, 1); console.log("made", b.length); process.exitCode = 3;\n');
    const figures = await runMeasured([path.join(dir, 'child.mjs')], { cwd: dir, stdoutFile: path.join(dir, 'out.txt') });
    expect(readFileSync(path.join(dir, 'out.txt'), 'utf8')).toBe(`made ${150 * 2 ** 20}\n`);
    expect(figures.exit).toBe(3);
    expect(figures.peakMb).toBeGreaterThan(150);
    expect(figures.cpuMs).toBeGreaterThan(0);
  });
});
