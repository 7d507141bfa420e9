import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { TIME_SCALE, openProject, type Project } from './harness.js';

/**
 * The notification test, through the real CLI: a loopback server receives the run's
 * summary for a failing run (exit 1) and for a successful one, each only where `on:` asks for it,
 * addresses read from the environment when the run ends, and the exit code untouched.
 */
const NODE = process.execPath;
const HOOK = `if (!process.argv.includes('fixed')) { console.error('upload refused'); process.exitCode = 3; }\n`;
const manifest = (fixed: boolean) => `
version: 1
name: notified
outputs: out
hooks:
  on_output: [${NODE}, hook.mjs, "{{ output.path }}"${fixed ? ', fixed' : ''}]
notify:
  - { webhook_url: "{{ env.FAILURE_URL }}", on: [failure] }
  - { webhook_url: "{{ env.SUCCESS_URL }}", on: [success] }
  - { webhook_url: "{{ env.ALWAYS_URL }}" }
  - { webhook_url: "{{ env.DOUBT_URL }}", on: [in_doubt, budget] }
steps:
  - id: s
    kind: ai_short
    with: { script: "Hello there.", style: 3D, aspect_ratio: 9x16 }
`;

let project: Project;
let server: ScriptedServer;
beforeEach(async () => {
  project = await openProject();
  server = await startScriptedServer();
  project.write('hook.mjs', HOOK);
});
afterEach(async () => {
  await server.close();
  await project.close();
});

test('a failing run and then a successful one each notify the webhooks whose on: matches, with the summary', async () => {
  const env = Object.fromEntries(['FAILURE', 'SUCCESS', 'ALWAYS', 'DOUBT'].map((name) => [`${name}_URL`, `${server.url}/${name.toLowerCase()}/T0/SECRET`]));
  for (const name of ['failure', 'success', 'always', 'doubt']) server.script('POST', `/${name}/T0/SECRET`, { status: 200 }, { status: 200 });

  project.write('m.yaml', manifest(false));
  const failing = await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE], env);
  expect(failing.exitCode, failing.stderr).toBe(1);
  expect(server.requests.map((r) => r.path)).toEqual(['/failure/T0/SECRET', '/always/T0/SECRET']);
  const sent = JSON.parse(server.requests[0]?.body ?? '{}') as { text: string; summary: Record<string, unknown> };
  const report = join(project.dir, 'out', 'report', 'index.html');
  expect(sent.text).toContain('reelpipe notified (m.yaml): failure (exit 1) — 1 hook failed');
  expect(sent.text).toContain(`report: ${report}`);
  expect(sent.summary).toMatchObject({ name: 'notified', manifest: join(project.dir, 'm.yaml'), ending: 'failure', exitCode: 1, jobs: 1, counts: { 'hook failed': 1 }, report });
  expect(sent.summary.credits).toMatchObject({ used: 5 });
  expect(failing.stderr).toContain(`notified ${server.url}/… (failure)`);
  expect(failing.stderr).not.toContain('SECRET');
  expect(server.requests.map((r) => r.body).join('')).not.toContain('e2e-api-key-secret');

  server.reset();
  for (const name of ['failure', 'success', 'always', 'doubt']) server.script('POST', `/${name}/T0/SECRET`, { status: 200 });
  project.write('m.yaml', manifest(true));
  const fixed = await project.cli(['retry', 'm.yaml', '--hooks', '--time-scale', TIME_SCALE], env);
  expect(fixed.exitCode, fixed.stderr).toBe(0);
  expect(server.requests.map((r) => r.path)).toEqual(['/success/T0/SECRET', '/always/T0/SECRET']);
  expect(JSON.parse(server.requests[0]?.body ?? '{}')).toMatchObject({ summary: { ending: 'success', exitCode: 0, counts: { done: 1 } } });
});

test('a webhook that cannot be reached is said, and the exit code is the run\'s', async () => {
  project.write('m.yaml', manifest(true));
  const closed = await startScriptedServer();
  await closed.close();
  const result = await project.cli(['run', 'm.yaml', '--time-scale', TIME_SCALE], { ALWAYS_URL: `${closed.url}/gone`, FAILURE_URL: 'x', SUCCESS_URL: 'x', DOUBT_URL: 'x' });
  expect(result.exitCode, result.stderr).toBe(0);
  expect(result.stderr).toMatch(/reelpipe: notifying http:\/\/127\.0\.0\.1:\d+\/… failed after 3 attempts: .*\(the exit code is unchanged\)/);
  expect(result.stderr).toContain('reelpipe: notify.1 not notified: its webhook_url is not an http:// or https:// address');
});

test('unknown costs reach on_finish and the notification as unknown, never as 0: the known part and the jobs left out, as status --json totals them', async () => {
  // The link is priced by nobody and its cost is never reported; the short costs 5.
  project.write('unknown.yaml', `
version: 1
name: unknown-costs
outputs: out-unknown
hooks:
  on_finish: [${NODE}, finish.cjs, "{{ totals.credits_estimated }}", "{{ totals.credits_used }}"]
notify:
  - { webhook_url: "{{ env.ALWAYS_URL }}" }
steps:
  - id: product
    kind: link_with_params
    download: false
    with: { title: Trail Runner 2, image_urls: [https://example.com/tr2.jpg] }
  - id: s
    kind: ai_short
    with: { script: "Hello there.", style: 3D, aspect_ratio: 9x16 }
`);
  const finish = 'require("fs").writeFileSync("finish.json", JSON.stringify({ args: process.argv.slice(2), summary: JSON.parse(process.env.REELPIPE_SUMMARY), used: process.env.REELPIPE_TOTALS_CREDITS_USED }))';
  project.write('finish.cjs', `${finish};\n`);
  server.script('POST', '/always', { status: 200 });
  const run = await project.cli(['run', 'unknown.yaml', '--time-scale', TIME_SCALE], { ALWAYS_URL: `${server.url}/always` });
  expect(run.exitCode, run.stderr).toBe(0);
  const status = JSON.parse((await project.cli(['status', 'unknown.yaml', '--json'])).stdout) as { totals: Record<string, unknown> };
  expect(status.totals).toMatchObject({ creditsEstimated: 5, unknownEstimates: 1, creditsUsed: 5, unknownUsed: 1 });
  const credits = {
    estimated: 5, unknownEstimates: 1, used: 5, unknownUsed: 1, cap: null,
    thisRun: { used: 5, unknown: 1 }, apart: { superseded: 0, removed: 0, forgotten: 0 },
  };
  const sent = JSON.parse(server.requests[0]?.body ?? '{}') as { text: string; summary: { credits: unknown } };
  expect(sent.summary.credits).toEqual(credits);
  expect(sent.text).toContain('credits used 5 + unknown (1 job) (estimated 5 + unknown (1 job))');
  const seen = JSON.parse(readFileSync(join(project.dir, 'finish.json'), 'utf8')) as { args: string[]; summary: { credits: unknown }; used: string };
  expect(seen.summary.credits).toEqual(credits);
  expect([seen.args, seen.used]).toEqual([['5', '5'], '5']);
});
