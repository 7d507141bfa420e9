import { afterEach, describe, expect, test } from 'vitest';
import { openProject, TIME_SCALE, type Project } from './harness.js';
import { adsManifest } from '../helpers/ads-manifest.js';

/**
 * Catalogues come from the service, never from our source: offline commands check HTML ad style
 * ids against the copy of the service's list the state database keeps (`reelpipe catalogue`, or a
 * run, reads it), and without one they price the ads and say the run will check them.
 */
let project: Project;
afterEach(() => project.close());


describe('style ids offline', () => {
  test('with no copy of the catalogue: ids never seen are priced, 10 credits an ad, and said to be checked before spending', async () => {
    project = await openProject();
    project.write('m.yaml', adsManifest('[brand-new-style, another-one]'));
    const validate = await project.cli(['validate', 'm.yaml']);
    expect(validate.exitCode, validate.stderr).toBe(0);
    expect(validate.stderr).toMatch(/warning: style ids of ads are priced \(10 credits an ad\) but not checked: .*the run checks them against the service before anything is sent/);
    const plan = await project.cli(['plan', 'm.yaml', '--json']);
    expect(plan.exitCode, plan.stderr).toBe(0);
    const json = JSON.parse(plan.stdout) as { jobs: { step: string; credits: { expected: number } | null }[]; warnings: string[] };
    expect(json.jobs.find((j) => j.step === 'ads')?.credits?.expected).toBe(20);
    expect(json.warnings.join('\n')).toMatch(/checks them against the service before anything is sent/);
  });

  test('`reelpipe catalogue styles` keeps the service\'s list: validate then refuses an id it does not offer, naming when it was read, and `all` plans to it', async () => {
    project = await openProject();
    const listed = await project.cli(['catalogue', 'styles']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/kept in .*state\/reelpipe\.db: validate and plan check manifests against it offline/);
    project.write('m.yaml', adsManifest('[quiz-3q, quiz-3x]'));
    const validate = await project.cli(['validate', 'm.yaml']);
    expect(validate.exitCode).toBe(2);
    expect(validate.stderr).toMatch(/steps\.1\.with\.style_ids\.1: "quiz-3x" is not offered by the service's catalogue as read on \d{4}-\d\d-\d\d \d\d:\d\d UTC .*did you mean quiz-3q\?/);
    project.write('all.yaml', adsManifest('all'));
    const plan = JSON.parse((await project.cli(['plan', 'all.yaml', '--json'])).stdout) as { jobs: { step: string; request: { style_ids: string[] } }[] };
    const offered = (await (await fetch(`${project.sandbox.url}/api/html_interactive_ads/styles/`, { headers: { 'X-API-ID': 'e2e-api-id', 'X-API-KEY': 'e2e-api-key-secret' } })).json()) as { id: string }[];
    expect(plan.jobs.filter((j) => j.step === 'ads').flatMap((j) => j.request.style_ids)).toEqual(offered.map((s) => s.id));
  });

  test('`style_ids: all` with no copy cannot be planned offline, but a run reads the live list, plans to it and keeps it', async () => {
    project = await openProject();
    project.write('all.yaml', adsManifest('all'));
    const plan = await project.cli(['plan', 'all.yaml']);
    expect(plan.exitCode).toBe(2);
    expect(plan.stderr).toMatch(/style_ids: all needs the service's catalogue of styles, .*`reelpipe catalogue styles`/);
    const run = await project.cli(['run', 'all.yaml', '--time-scale', TIME_SCALE]);
    expect(run.exitCode, run.stderr).toBe(0);
    const [kept] = project.query<{ service: string; name: string }>('SELECT service, name FROM catalogues');
    expect(kept).toEqual({ service: project.sandbox.url, name: 'styles' });
    expect((await project.cli(['plan', 'all.yaml'])).exitCode).toBe(0);
  });
});
