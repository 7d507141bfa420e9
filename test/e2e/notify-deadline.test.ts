import { afterEach, beforeEach, expect, test } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startScriptedServer, type ScriptedServer } from '../helpers/scripted-server.js';
import { openProject, type Project } from './harness.js';

/**
 * `--max-wait` bounds the notifications too: a webhook that never answers gets one short try past
 * the deadline (the floor), not 3 attempts of 20 s each, and the exit code stays the run's.
 */
const MANIFEST = `
version: 1
name: slow
outputs: out
notify:
  - { webhook_url: "{{ env.HOOK_URL }}" }
steps:
  - id: s
    kind: ai_short
    with: { script: "Hello there.", style: 3D, aspect_ratio: 9x16 }
`;

let project: Project;
let hook: ScriptedServer;
beforeEach(async () => {
  // Speed 1: the short is still rendering when --max-wait ends.
  project = await openProject({ speed: 1 });
  hook = await startScriptedServer();
});
afterEach(async () => {
  await hook.close();
  await project.close();
});

test('a notification webhook that never answers cannot keep a run past --max-wait: one try, then exit 4 as the run decided', async () => {
  hook.script('POST', '/T0/SECRET', { hang: true }, { hang: true }, { hang: true });
  project.write('m.yaml', MANIFEST);
  const env = {
    REELPIPE_BASE_URL: project.sandbox.url, REELPIPE_API_ID: 'e2e-api-id', REELPIPE_API_KEY: 'e2e-api-key-secret',
    HOOK_URL: `${hook.url}/T0/SECRET`,
  };
  // Unbounded, the notification alone took up to a minute: only the deadline ends it before this
  // test's own 20 s timeout kills the run.
  const run = await runCli(['run', 'm.yaml', '--max-wait', '1s'], { cwd: project.dir, env, timeout: 20_000 });
  expect(run.signal, run.stderr).toBeUndefined();
  expect(run.exitCode, run.stderr).toBe(4);
  expect(run.stderr).toMatch(/notifying http:\/\/127\.0\.0\.1:\d+\/… failed after 1 attempt: .*no time left to try again before --max-wait ends \(the exit code is unchanged\)/);
  expect(hook.requestsTo('POST', '/T0/SECRET')).toHaveLength(1);
}, 30_000);
