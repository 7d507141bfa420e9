import { describe, expect, test } from 'vitest';
import { load, problems } from './helpers/temp-tree.js';

/** `hooks:` and `notify:` are checked like the rest: every problem located, with what is accepted. */
const STEPS = `steps:
  - id: shorts
    kind: ai_short
    for_each: { csv: rows.csv }
    with: { script: "{{ row.script }}", aspect_ratio: 9x16, style: Cinematic }
  - id: link
    kind: link
    with: { url: https://example.com }
`;
const files = (top: string, steps = STEPS) => ({ 'manifest.yaml': `version: 1\nname: t\n${top}${steps}`, 'rows.csv': 'sku,script\nA1,Hello there\n' });
const ON_OUTPUT = 'accepted in on_output: row.COLUMN, matrix.AXIS, env.NAME, job.key, job.label, job.step, job.kind, job.remote_id, job.origin, job.output_name, output.path, output.relative_path, output.index, output.bytes, output.sha256, output.content_type, run.id, run.manifest, run.name, run.outputs';

describe('hooks: and notify: problems', () => {
  test.each([
    ['a misspelt field', 'hooks:\n  on_output: [up, "{{ job.labl }}"]\n', ['manifest.yaml:4:19  hooks.on_output.1: job has no field "labl"; did you mean job.label? (accepted: job.key, job.label, job.step, job.kind, job.remote_id, job.origin, job.output_name) in {{ job.labl }}']],
    ['a placeholder of another place', 'hooks:\n  on_output: [up, "{{ totals.done }}"]\n', [`manifest.yaml:4:19  hooks.on_output.1: totals is known only in on_finish (${ON_OUTPUT}) in {{ totals.done }}`]],
    ['a credential', 'hooks:\n  on_finish: [up, "--key={{ env.REELPIPE_API_KEY }}"]\n', ['manifest.yaml:4:19  hooks.on_finish.1: credentials never go in a manifest: set REELPIPE_API_ID and REELPIPE_API_KEY in the environment']],
    ['a column the CSV lacks', 'hooks:\n  on_output: [up, "{{ row.skuu }}"]\n', ['manifest.yaml:4:19  hooks.on_output.1: {{ row.skuu }}: step shorts reads rows.csv, which has no column skuu (columns: sku, script)']],
    ['an empty command', 'hooks:\n  on_output: ["", x]\n', ['manifest.yaml:4:14  hooks.on_output: the first element is the command to run: it cannot be empty']],
    ['a command line instead of an array', 'hooks:\n  on_output: "upload {{ output.path }}"\n', ['manifest.yaml:4:14  hooks.on_output: expected a list, got "upload {{ output.path }}"']],
    ['a timeout out of range', 'hooks:\n  timeout_seconds: 7200\n', ['manifest.yaml:4:20  hooks.timeout_seconds: must be at most 3600, got 7200']],
    ['a webhook that is not http(s)', 'notify:\n  - webhook_url: ftp://example.com/x\n', ['manifest.yaml:4:18  notify.0.webhook_url: "ftp://example.com/x" is not an http:// or https:// address']],
    ['an unknown on: value', 'notify:\n  - { webhook_url: "{{ env.SLACK_URL }}", on: [failed] }\n', ['manifest.yaml:4:48  notify.0.on.0: "failed" is not accepted (accepted: success, failure, budget, unfinished, in_doubt, always)']],
    ['a webhook placeholder other than env', 'notify:\n  - webhook_url: "https://x.example/{{ run.id }}"\n', ['manifest.yaml:4:18  notify.0.webhook_url: run is known only in on_output and on_finish (accepted in webhook_url: env.NAME) in {{ run.id }}']],
  ])('%s', async (_, top, expected) => {
    expect(await problems(files(top))).toEqual(expected);
  });

  test("a step's own hook must have the rows and matrix it reads; on_finish is the manifest's only", async () => {
    const steps = `steps:\n  - id: link\n    kind: link\n    with: { url: https://example.com }\n    hooks:\n      on_output: [up, "{{ row.sku }}", "{{ matrix.lang }}"]\n`;
    expect(await problems(files('', steps))).toEqual([
      'manifest.yaml:8:23  steps.0.hooks.on_output.1: {{ row.sku }}: step link has no rows (for_each: { rows | csv | jsonl })',
      'manifest.yaml:8:40  steps.0.hooks.on_output.2: {{ matrix.lang }}: step link has no matrix',
    ]);
    const finish = `steps:\n  - id: link\n    kind: link\n    with: { url: https://example.com }\n    hooks: { on_finish: [x] }\n`;
    expect((await problems(files('', finish)))[0]).toBe('manifest.yaml:7:14  steps.0.hooks.on_finish: unknown field (accepted: on_output, timeout_seconds)');
  });

  test("each step gets its own output hook or the manifest's, with its timeout; env values are not needed to load", async () => {
    const top = 'hooks:\n  on_output: [up, "{{ env.TOKEN }}", "{{ row.sku }}"]\n  timeout_seconds: 30\n  on_finish: [done]\nnotify:\n  - webhook_url: "{{ env.SLACK_URL }}"\n';
    const steps = STEPS.replace('    with: { url: https://example.com }\n', '    with: { url: https://example.com }\n    hooks: { on_output: [own], timeout_seconds: 5 }\n');
    const manifest = await load(files(top, steps));
    expect(manifest.steps.map((s) => [s.id, s.onOutput?.argv[0], s.onOutput?.timeoutMs])).toEqual([
      ['shorts', ['up'], 30_000],
      ['link', ['own'], 5000],
    ]);
    expect(manifest.hooks).toMatchObject({ timeoutMs: 30_000, concurrency: 4, onFinish: { argv: [['done']] } });
    expect(manifest.notify).toEqual([{ url: [{ ns: 'env', name: 'SLACK_URL', text: '{{ env.SLACK_URL }}' }], on: ['always'], path: ['notify', 0, 'webhook_url'] }]);
  });
});
