import { describe, expect, test } from 'vitest';
import { stepInstances, type Manifest, type StepInstance } from '../../src/manifest/index.js';
import { planManifest } from '../../src/plan/index.js';
import { load, manifestWith } from './helpers/temp-tree.js';

/** What a manifest expands into: one request body per row × matrix combination. */
const requests = async (files: Record<string, string | object>, env: NodeJS.ProcessEnv = {}) => {
  return instancesOf(await load(files, env));
};

/** Each step's instances, made as the planner makes them. */
const instancesOf = (manifest: Manifest): Record<string, StepInstance[]> => Object.fromEntries(manifest.steps.map((step) => [step.id, [...stepInstances(manifest, step)]]));

const short = (extra: object = {}) => ({ id: 'shorts', kind: 'ai_short', with: { script: 'Hi', aspect_ratio: '9x16', style: 'Cinematic' }, ...extra });

describe('rows', () => {
  test('a CSV with quoting, embedded newlines, a BOM and blank lines gives one job per row, with its line', async () => {
    const csv = '\uFEFFsku,script\n"A-1","Hello, world"\n\nB-2,"two\nlines"\nC-3,"say ""hi"""\n';
    const step = short({ for_each: { csv: 'rows.csv' }, name: '{{ row.sku }}' });
    step.with.script = '{{ row.script }}';
    const { shorts = [] } = await requests({ 'manifest.yaml': manifestWith([step]), 'rows.csv': csv });
    expect(shorts.map((i) => [i.request.script, i.name, i.origin?.line])).toEqual([
      ['Hello, world', 'A-1', 2],
      ['two\nlines', 'B-2', 4],
      ['say "hi"', 'C-3', 6],
    ]);
  });

  test('JSON Lines keep their types; inline rows too', async () => {
    const boreal = { id: 'clip', kind: 'boreal', for_each: { jsonl: 'clips.jsonl' }, with: { prompt: '{{ row.prompt }}', duration: '{{ row.seconds }}' } };
    const inline = { id: 'inline', kind: 'boreal', for_each: { rows: [{ s: 12 }] }, with: { prompt: 'x', duration: '{{ row.s }}' } };
    const out = await requests({ 'manifest.yaml': manifestWith([boreal, inline]), 'clips.jsonl': '{"prompt": "surf", "seconds": 10}\n\n{"prompt": "ski", "seconds": 20}\n' });
    expect(out.clip?.map((i) => [i.request.duration, i.origin?.line])).toEqual([[10, 1], [20, 3]]);
    expect(out.inline?.[0]?.request.duration).toBe(12);
  });

  test('a CSV cell becomes a number where the request field takes a number, and stays text elsewhere', async () => {
    const step = { id: 'clip', kind: 'boreal', for_each: { csv: 'c.csv' }, with: { prompt: '{{ row.n }}', duration: '{{ row.n }}' } };
    const { clip = [] } = await requests({ 'manifest.yaml': manifestWith([step]), 'c.csv': 'n\n10\n' });
    expect(clip[0]?.request).toEqual({ prompt: '10', duration: 10 });
  });

  test('a placeholder inside text is text; step defaults fill empty cells', async () => {
    const step = short({ for_each: { csv: 's.csv' }, defaults: { tone: 'calm' } });
    step.with.script = 'Product {{ row.sku }} in a {{ row.tone }} voice';
    const { shorts = [] } = await requests({ 'manifest.yaml': manifestWith([step]), 's.csv': 'sku,tone\n7,\n8,loud\n' });
    expect(shorts.map((i) => i.request.script)).toEqual(['Product 7 in a calm voice', 'Product 8 in a loud voice']);
  });

  test('environment values are substituted, and only referenced variables are kept', async () => {
    const step = short();
    step.with.script = 'Brand {{ env.BRAND }}';
    const manifest = await load({ 'manifest.yaml': manifestWith([step]) }, { BRAND: 'Acme', OTHER_SECRET: 's3cret' });
    expect(manifest.env).toEqual({ BRAND: 'Acme' });
    expect(instancesOf(manifest).shorts?.[0]?.request.script).toBe('Brand Acme');
  });
});

describe('matrix', () => {
  test.each([
    ['the cartesian product, first axis outermost', { lang: ['de', 'fr'], ratio: ['9x16', '1x1'] }, [['de', '9x16'], ['de', '1x1'], ['fr', '9x16'], ['fr', '1x1']]],
    ['exclude drops matching combinations', { lang: ['de', 'fr'], ratio: ['9x16', '1x1'], exclude: [{ lang: 'fr', ratio: '1x1' }] }, [['de', '9x16'], ['de', '1x1'], ['fr', '9x16']]],
    ['include that fits no combination adds one', { lang: ['de'], ratio: ['9x16'], include: [{ lang: 'ja', ratio: '16x9' }] }, [['de', '9x16'], ['ja', '16x9']]],
    ['include-only matrices list their combinations', { include: [{ lang: 'es', ratio: '1x1' }] }, [['es', '1x1']]],
  ])('%s', async (_, matrix, expected) => {
    const step = { id: 'c', kind: 'ad_clone', matrix, with: { link: '123e4567-e89b-12d3-a456-426614174000', video_url: 'https://example.com/a.mp4', language: '{{ matrix.lang }}', aspect_ratio: '{{ matrix.ratio }}' } };
    const { c = [] } = await requests({ 'manifest.yaml': manifestWith([step]) });
    expect(c.map((i) => [i.request.language, i.request.aspect_ratio])).toEqual(expected);
  });

  test('include adds keys to the combinations it fits', async () => {
    const matrix = { lang: ['de', 'fr'], include: [{ lang: 'fr', voice: 'Amelie' }] };
    const step = short({ matrix, name: '{{ matrix.lang }}-{{ matrix.voice }}' });
    const { shorts = [] } = await requests({ 'manifest.yaml': manifestWith([step]) });
    expect(shorts.map((i) => i.name)).toEqual(['de-', 'fr-Amelie']);
  });
});

describe('kind-specific expansion', () => {
  test('manifest defaults merge under a step, objects key by key', async () => {
    const step = { id: 'shorts', kind: 'ai_short', with: { script: 'Hi', caption_setting: { style: 'neo' } } };
    const defaults = { ai_short: { aspect_ratio: '9x16', style: 'Kawaii', caption_setting: { font_family: 'Poppins', style: 'glow' } } };
    const { shorts = [] } = await requests({ 'manifest.yaml': manifestWith([step], { defaults }) });
    expect(shorts[0]?.request).toEqual({ aspect_ratio: '9x16', style: 'Kawaii', caption_setting: { font_family: 'Poppins', style: 'neo' }, script: 'Hi' });
  });

  test('html_ads style_ids: all is left for the planner, which expands it with the service\'s catalogue into jobs of at most 20 styles', async () => {
    const step = { id: 'ads', kind: 'html_ads', with: { link: '123e4567-e89b-12d3-a456-426614174000', style_ids: 'all' } };
    const files = { 'manifest.yaml': manifestWith([step]) };
    const { ads = [] } = await requests(files);
    expect(ads.map((i) => i.request.style_ids)).toEqual(['all']);
    const catalogue = { ids: Array.from({ length: 24 }, (_, i) => `style-${i}`), said: 'the test catalogue' };
    const plan = planManifest(await load(files), { styles: catalogue });
    expect(plan.jobs.map((j) => (j.request.style_ids as string[]).length)).toEqual([20, 4]);
    expect(plan.jobs[0]?.request.style_ids).toContain('style-0');
    // Over the step's job limit once expanded: refused as expansion refuses one.
    const limited = { 'manifest.yaml': manifestWith([step], { limits: { jobs_per_step: 1 } }) };
    await expect(load(limited).then((m) => planManifest(m, { styles: catalogue }))).rejects.toThrow(/2 jobs \(style_ids: all split into jobs of at most 20 of the catalogue's styles\), above the limit of 1 jobs per step/);
  });

  test('path-id kinds take id out of the body', async () => {
    const step = { id: 'fix', kind: 'link_update', with: { id: '123e4567-e89b-12d3-a456-426614174000', title: 'Trail Runner 2' } };
    const { fix = [] } = await requests({ 'manifest.yaml': manifestWith([step]) });
    expect(fix[0]).toMatchObject({ pathId: '123e4567-e89b-12d3-a456-426614174000', request: { title: 'Trail Runner 2' } });
  });

  test('a custom_template render takes the preview job id; preview and both take the template body', async () => {
    const steps = [
      { id: 'preview', kind: 'custom_template', mode: 'preview', with: { template_id: 'tpl-1', variables: { headline: 'Hi' } } },
      { id: 'render', kind: 'custom_template', mode: 'render', for_each: { step: 'preview' }, with: { id: '{{ item.id }}' } },
    ];
    const manifest = await load({ 'manifest.yaml': manifestWith(steps) });
    const out = instancesOf(manifest);
    expect(out.preview?.[0]?.request).toEqual({ template_id: 'tpl-1', variables: { headline: 'Hi' } });
    expect(out.render?.[0]).toMatchObject({ pathId: '{{ item.id }}', request: {} });
    expect(manifest.steps.map((s) => s.needs)).toEqual([[], ['preview']]);
  });

  test('a reference stands in for its value when checking, and stays a placeholder in the body', async () => {
    const steps = [
      { id: 'tune', kind: 'music', with: { category: 'upbeat' } },
      { ...short(), with: { ...short().with, background_music_url: '{{ steps.tune.url }}' } },
    ];
    const out = await requests({ 'manifest.yaml': manifestWith(steps) });
    expect(out.shorts?.[0]?.request.background_music_url).toBe('{{ steps.tune.url }}');
  });
});
