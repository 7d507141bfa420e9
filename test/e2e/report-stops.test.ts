import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { overrunningClones } from '../report/fixtures/clone-manifest.js';

/** A run that stops early still ends with its report: those are the runs whose report is most needed. */
const dir = mkdtempSync(join(tmpdir(), 'reelpipe-report-stops-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cli = (args: string[]) => runCli(args, { cwd: dir, timeout: 60_000 });

interface Results { run: { outcome: string }; jobs: { key: string; label: string; state: string; credits: { used: number | null; overHighEstimate: boolean } }[] }
const results = (name: string) => JSON.parse(readFileSync(join(dir, 'out', `${name}.sandbox`, 'report', 'results.json'), 'utf8')) as Results;

/** A manifest of one AI Short, its outputs in out/NAME. */
const oneShort = (name: string, script: string) => `version: 1
name: ${name}
outputs: out/${name}
steps:
  - id: shorts
    kind: ai_short
    with: { script: "${script}", style: 3D, aspect_ratio: 9x16 }
`;

describe('the report is written', () => {
  test('when --max-wait leaves work unfinished (exit 4), with the job still in flight', async () => {
    writeFileSync(join(dir, 'slow.yaml'), oneShort('slow', 'A short that takes its time.'));
    // At the sandbox's real speed the short renders for many seconds; the run stops after one.
    const run = await cli(['run', 'slow.yaml', '--sandbox', '--sandbox-speed', '1', '--max-wait', '1s']);
    expect(run.exitCode, run.stderr).toBe(4);
    expect(run.stdout).toContain(`report: ${join(dir, 'out', 'slow.sandbox', 'report', 'index.html')}`);
    const json = results('slow');
    expect(json.run.outcome).toBe('UNFINISHED');
    expect(json.jobs.map((j) => [j.label, j.state, j.credits.used])).toEqual([['shorts', expect.stringMatching(/^(submitted|running)$/), null]]);
  });

  test('when the budget stops the run (exit 3), with the jobs that cost more than their high estimate', async () => {
    // Each clone costs 168 against a high estimate of 120: the cap of 300 is passed.
    writeFileSync(join(dir, 'clones.yaml'), overrunningClones({ name: 'clones', languages: ['de', 'fr', 'es'], maxCredits: 300 }));
    const run = await cli(['run', 'clones.yaml', '--sandbox']);
    expect(run.exitCode, run.stderr).toBe(3);
    expect(run.stdout).toContain(`report: ${join(dir, 'out', 'clones.sandbox', 'report', 'index.html')}`);
    const json = results('clones');
    expect(json.run.outcome).toBe('BUDGET_EXCEEDED');
    expect(json.jobs.filter((j) => j.credits.overHighEstimate).map((j) => [j.label, j.credits.used])).toEqual([['clone-de', 168], ['clone-fr', 168]]);
    expect(json.jobs.find((j) => j.label === 'clone-es')?.state).toBe('not submitted');
    const html = readFileSync(join(dir, 'out', 'clones.sandbox', 'report', 'index.html'), 'utf8');
    expect(html).toContain('<td class="n over">2 over</td>');
  });

  test('the budget stop is told in the summary\'s words and figures, each job by its label beside its key', async () => {
    writeFileSync(join(dir, 'worded.yaml'), overrunningClones({ name: 'worded', languages: ['de', 'fr', 'es'], maxCredits: 300 }));
    const run = await cli(['run', 'worded.yaml', '--sandbox']);
    expect(run.exitCode, run.stderr).toBe(3);
    const [, used, counted] = /^credits: estimated [^,]+, used (.+); cap 300, (\d+) counted against it/m.exec(run.stdout) ?? [];
    expect([used, counted]).toEqual(['336 + unknown (1 job)', '337']);
    const stopping = run.stderr.split('\n').find((line) => line.includes('  stopping: ')) ?? '';
    const stoppedEarly = run.stdout.split('\n').find((line) => line.startsWith('stopped early: ')) ?? '';
    const final = run.stderr.trimEnd().split('\n').at(-1) ?? '';
    // The exit message's figures are the summary's, in its words; the stop's own reason is dated "at that moment".
    expect(final).toMatch(/ {2}reelpipe: the credit cap stopped submitting: 337 counted against the cap of 300 \(used 336 \+ unknown \(1 job\): /);
    expect(final).toContain('PAST the cap by 37');
    for (const line of [stopping, stoppedEarly, final]) {
      expect(line).toMatch(/clone-es \(clones:[0-9a-f]{12}\) was not submitted: its high estimate of 120 could pass the cap \(at that moment \d+ counted against the cap of 300 and \d+ held for jobs in flight\)/);
      expect(line).not.toMatch(/\bspent\b|\breserved\b/);
    }
    // The jobs that passed the cap, as the summary lists them.
    for (const label of ['clone-de', 'clone-fr']) {
      const overrun = new RegExp(`${label} \\(clones:[0-9a-f]{12}\\): charged 168, high estimate 120`);
      expect(run.stdout).toMatch(overrun);
      expect(final).toMatch(overrun);
    }
    // No job is named by its key alone.
    const jobs = results('worded').jobs;
    for (const line of [stopping, stoppedEarly, final]) {
      const unlabelled = jobs.reduce((text, job) => text.replaceAll(`${job.label} (${job.key})`, ''), line);
      expect(unlabelled, line).not.toMatch(/\b(product|clones):[0-9a-f]{12}\b/);
    }
  });
});

describe('a report the run cannot write', () => {
  test('is said on a stamped line naming the way to write it; the run\'s exit code stands on its jobs', async () => {
    writeFileSync(join(dir, 'blocked.yaml'), oneShort('blocked', 'A short whose report has nowhere to go.'));
    // A file where the report's folder goes: the folder cannot be made.
    mkdirSync(join(dir, 'out', 'blocked.sandbox'), { recursive: true });
    writeFileSync(join(dir, 'out', 'blocked.sandbox', 'report'), 'not a folder');
    const run = await cli(['run', 'blocked.yaml', '--sandbox']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).not.toContain('report: ');
    const line = run.stderr.split('\n').find((l) => l.includes('the report could not be written')) ?? '';
    expect(line).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z {2}reelpipe: the report could not be written: /);
    expect(line).toContain(`\`reelpipe report ${join(dir, 'blocked.yaml')}\` writes it`);
  });
});
