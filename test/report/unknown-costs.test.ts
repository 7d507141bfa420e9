import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { REPO_ROOT, runCli } from '../helpers/cli.js';
import { overrunningClones } from './fixtures/clone-manifest.js';

/**
 * Issue 8.8: unknown costs are never shown as 0, and a real cost above the high estimate is said
 * plainly — in the run's summary, in `status` and in `status --json` — on the embedded sandbox.
 */
const dir = mkdtempSync(join(tmpdir(), 'reelpipe-unknown-costs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const cli = (args: string[]) => runCli(args, { cwd: dir, timeout: 60_000 });

interface Status {
  totals: { creditsEstimated: number | null; creditsUsed: number | null; unknownEstimates: number; overHighEstimate: number };
  jobs: { label: string; creditsEstimated: number | null; creditsUsed: number | null; overHighEstimate: boolean }[];
}

describe('a step nobody prices (asset generation)', () => {
  let run: Awaited<ReturnType<typeof cli>>;
  beforeAll(async () => {
    cpSync(join(REPO_ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
    run = await cli(['run', 'examples/asset-generation.yaml', '--sandbox']);
  });

  test('the summary says its estimate is unknown, not 0', () => {
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('credits: estimated unknown, used 12\n');
    expect(run.stdout).not.toMatch(/estimated 0/);
  });

  test('status says unknown for the estimate, per step and in total', async () => {
    const status = await cli(['status', 'examples/asset-generation.yaml', '--sandbox']);
    expect(status.stdout).toMatch(/^ {2}heroes +asset_generation +3 done +credits used 12, estimated unknown$/m);
    expect(status.stdout).toContain('total: 3 jobs — 3 done; credits used 12, estimated unknown');
    expect(status.stdout).not.toMatch(/of ~0|estimated 0/);
  });

  test('status --json has null estimates, not 0', async () => {
    const json = JSON.parse((await cli(['status', 'examples/asset-generation.yaml', '--sandbox', '--json'])).stdout) as Status;
    expect(json.totals).toMatchObject({ creditsEstimated: null, creditsUsed: 12, unknownEstimates: 3 });
    expect(json.jobs.map((j) => [j.creditsEstimated, j.creditsUsed])).toEqual([[null, 4], [null, 4], [null, 4]]);
  });
});

// The other kinds the issue named: each example runs on the sandbox; none may show its unknown estimate as 0.
// The persona's review lasts 36 h of service time: run at the speed its header tells the user to use.
describe.each([
  ['custom-template', []],
  ['text-generation', []],
  ['persona', ['--sandbox-speed', '100000']],
])('the %s example, whose cost nobody prices', (name, flags) => {
  test('says unknown in the summary, in status and as null in status --json — never 0', async () => {
    if (!existsSync(join(dir, 'examples'))) cpSync(join(REPO_ROOT, 'examples'), join(dir, 'examples'), { recursive: true });
    const run = await cli(['run', `examples/${name}.yaml`, '--sandbox', ...flags]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^credits: estimated [^\n]*unknown/m);
    expect(run.stdout).not.toMatch(/estimated 0\b/);
    const status = await cli(['status', `examples/${name}.yaml`, '--sandbox']);
    expect(status.stdout).toMatch(/estimated [^\n]*unknown/);
    expect(status.stdout).not.toMatch(/of ~0|estimated 0\b/);
    const json = JSON.parse((await cli(['status', `examples/${name}.yaml`, '--sandbox', '--json'])).stdout) as Status;
    expect(json.totals.unknownEstimates).toBeGreaterThan(0);
    expect(json.jobs.some((j) => j.creditsEstimated === null)).toBe(true);
    expect(json.jobs.every((j) => j.creditsEstimated !== 0 || j.creditsUsed === 0)).toBe(true);
  });
});

describe('an ad clone charged above its high estimate', () => {
  let run: Awaited<ReturnType<typeof cli>>;
  beforeAll(async () => {
    writeFileSync(join(dir, 'clone.yaml'), overrunningClones({ name: 'clone', languages: ['de'] }));
    run = await cli(['run', 'clone.yaml', '--sandbox']);
  });

  test('the summary says so, naming the job, what it cost and the high estimate', () => {
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/cost more than the high estimate.*:\n {2}clone-de \(clones:\w+\): charged 168, high estimate 120\n/);
    // The link's cost is never reported: unknown, not 0.
    expect(run.stdout).toContain('credits: estimated 84, used 168 + unknown (1 job)');
  });

  test('status marks the job and counts it', async () => {
    const status = await cli(['status', 'clone.yaml', '--sandbox']);
    expect(status.stdout).toMatch(/^ {2}clone-de +clones:\w+ +ad_clone +done .* 168 cr \(over the high estimate 120\)/m);
    expect(status.stdout).toMatch(/^ {2}clones .*credits used 168, estimated 84; 1 over the high estimate$/m);
    const json = JSON.parse((await cli(['status', 'clone.yaml', '--sandbox', '--json'])).stdout) as Status;
    expect(json.jobs.map((j) => [j.label, j.creditsUsed, j.overHighEstimate])).toEqual([['product', null, false], ['clone-de', 168, true]]);
    expect(json.totals).toMatchObject({ creditsUsed: 168, overHighEstimate: 1 });
  });
});
