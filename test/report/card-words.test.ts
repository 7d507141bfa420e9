import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { planManifest } from '../../src/plan/index.js';
import { JOB_WORDS_MAX } from '../../src/report/job-words.js';
import { writeRunReport } from '../../src/report/write-report.js';
import { load, manifestWith } from '../manifest/helpers/temp-tree.js';

/** What a gallery card says of its job (its words) is at most 200 characters, however long the row's script. */
const long = `Every trail starts with one step. ${'And every step is a choice, made in the rain or the sun. '.repeat(20)}`;

describe("a card's text", () => {
  test('holds at most 200 characters of the job\'s words, cut with an ellipsis; results.json keeps the row whole', async () => {
    const plan = planManifest(await load({
      'manifest.yaml': manifestWith([{ id: 'shorts', kind: 'ai_short', name: 'short-{{ row.sku }}', for_each: { rows: [{ sku: 'A', script: long }, { sku: 'B', script: 'Short.' }] }, with: { script: '{{ row.script }}', style: '3D', aspect_ratio: '9x16' } }]),
    }));
    const written = await writeRunReport({ plan, statePath: `${plan.outputsDir}/../state/none.db`, now: Date.UTC(2026, 0, 1) });
    const html = readFileSync(written.html, 'utf8');
    const data = JSON.parse(/<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '') as { jobs: { l: string; w?: string }[] };
    const words = data.jobs.map((j) => j.w ?? '');
    expect(JOB_WORDS_MAX).toBe(200);
    expect([...(words[0] ?? '')]).toHaveLength(200);
    expect(words[0]).toBe(`${[...long.trim()].slice(0, 199).join('').trimEnd()}…`);
    expect(words[1]).toBe('Short.');
    const json = JSON.parse(readFileSync(written.json, 'utf8')) as { jobs: { row: { script: string } }[] };
    expect(json.jobs[0]?.row.script).toBe(long);
  });
});
