import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { overrunningClones } from '../report/fixtures/clone-manifest.js';

/** A run that stops early still ends with its report: those are the runs whose report is most needed. */
const dir = mkdtempSync(join(tmpdir(), 'reelpipe-report-stops-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cli = (args: string[]) => runCli(args, { cwd: dir, timeout: 60_000 });

interface Results { run: { outcome: string }; jobs: { label: string; state: string; credits: { used: number | null; overHighEstimate: boolean } }[] }
const results = (name: string) => JSON.parse(readFileSync(join(dir, 'out', `${name}.sandbox`, 'report', 'results.json'), 'utf8')) as Results;

describe('the report is written', () => {
  test('when --max-wait leaves work unfinished (exit 4), with the job still in flight', async () => {
    writeFileSync(join(dir, 'slow.yaml'), `version: 1
name: slow
outputs: out/slow
steps:
  - id: shorts
    kind: ai_short
    with: { script: "A short that takes its time.", style: 3D, aspect_ratio: 9x16 }
`);
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
});
