import { describe, expect, test } from 'vitest';
import { problems } from './helpers/temp-tree.js';

/**
 * A problem stops only what depends on it: every step whose own shape is sound has its rules and
 * requests checked, whatever is wrong elsewhere; the last line names what could not be checked.
 */
const note = (steps: string) => `… not fully checked yet: ${steps}; further checks run once these are fixed`;
const short = (id: string, extra = '', style = 'Cinematic') => `  - id: ${id}
    kind: ai_short
    with: { script: Hello there, aspect_ratio: 9x16, style: ${style} }
${extra}`;
const manifest = (steps: string, top = '') => ({ 'manifest.yaml': `version: 1\nname: test\n${top}steps:\n${steps}` });
const STYLES = '; did you mean Cinematic? (accepted: 4K realistic, 3D, Cinematic, Cartoonish, Line art, Pixel art, Mysterious, Steam punk, Collage, Kawaii)';

describe('staged validation reports everything that can be checked', () => {
  test('an unknown top-level key does not hide a request problem in a step', async () => {
    expect(await problems(manifest(short('a', '', 'Cinema'), 'concurency: 8\n'))).toEqual([
      'manifest.yaml:3:1  concurency: unknown field; did you mean concurrency? (accepted: $schema, version, name, project, description, budget, concurrency, kind_concurrency, retries, outputs, limits, defaults, hooks, notify, steps)',
      `manifest.yaml:7:61  steps.0.with.style: "Cinema" is not accepted${STYLES}`,
    ]);
  });

  test('an unknown field on step 2 does not hide a typo in step 1, and step 2 is named as not checked', async () => {
    expect(await problems(manifest(short('a', '', 'Cinema') + short('b', '    donwload: false\n')))).toEqual([
      `manifest.yaml:6:61  steps.0.with.style: "Cinema" is not accepted${STYLES}`,
      'manifest.yaml:10:5  steps.1.donwload: unknown field; did you mean download? (accepted: id, kind, description, with, for_each, matrix, defaults, needs, name, download, estimate_credits, mode, hooks, priority, retries)',
      note('steps.1 (b)'),
    ]);
  });

  test('a rule broken in step 1 does not stop the requests of step 2', async () => {
    const broken = short('a').replace('9x16', '"{{ matrix.ratio }}"');
    expect(await problems(manifest(broken + short('b', '', 'Cinema')))).toEqual([
      'manifest.yaml:6:48  steps.0.with.aspect_ratio: {{ matrix.ratio }} needs a matrix on this step',
      `manifest.yaml:9:61  steps.1.with.style: "Cinema" is not accepted${STYLES}`,
      note('steps.0 (a)'),
    ]);
  });

  test('a reference to a step whose shape failed is not "no step"; the referring step is still checked', async () => {
    const clone = `  - id: clone\n    kind: ad_clone\n    with: { link: "{{ steps.product.id }}", video_url: not-a-url }\n`;
    const product = `  - id: product\n    kind: link\n    with: { url: https://example.com/p }\n    matrix: lots\n`;
    expect(await problems(manifest(product + clone))).toEqual([
      'manifest.yaml:7:13  steps.0.matrix: expected a map, got "lots"',
      'manifest.yaml:10:56  steps.1.with.video_url: must be a URL like https://example.com/file.mp4, got "not-a-url"',
      note('steps.0 (product)'),
    ]);
  });

  test('defaults that are not a map stop every step, which the last line says', async () => {
    expect(await problems(manifest(short('a') + short('b'), 'defaults: [1]\n'))).toEqual([
      'manifest.yaml:3:11  defaults: expected a map, got [1]',
      note('steps.0 (a), steps.1 (b)'),
    ]);
  });

  test('a broken kind in defaults stops the steps of that kind only', async () => {
    const link = `  - id: page\n    kind: link\n    with: { url: nope }\n`;
    expect(await problems(manifest(short('a') + link, 'defaults: { ai_short: 3 }\n'))).toEqual([
      'manifest.yaml:3:23  defaults.ai_short: expected a map, got 3',
      'manifest.yaml:10:18  steps.1.with.url: must be a URL like https://example.com/file.mp4, got "nope"',
      note('steps.0 (a)'),
    ]);
  });
});
