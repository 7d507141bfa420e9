import { expect, test } from 'vitest';
import { problems } from './helpers/temp-tree.js';

/**
 * A matrix value the request does not accept is reported where it is written — at the value in
 * `matrix:` (`steps.N.matrix.AXIS.I`, or the include entry that gave it), with what it was used
 * as and a did-you-mean from the accepted values — not at the templated field, once per value
 * however many combinations repeat it.
 */
const head = (steps: string, top = '') => `version: 1\nname: test\n${top}steps:\n${steps}`;
const shorts = (matrix: string, fields = 'aspect_ratio: "{{ matrix.aspect_ratio }}", style: 3D', extra = '') =>
  head(`  - id: shorts\n    kind: ai_short\n    matrix: ${matrix}\n${extra}    with: { script: Hello there, ${fields} }\n`);
const ACCEPTED_RATIOS = '(accepted: 9x16, 16x9, 1x1)';

test.each([
  [
    'an axis value',
    shorts('{ aspect_ratio: [9x16, 16x19], tone: [calm, loud] }'),
    [`manifest.yaml:6:36  steps.0.matrix.aspect_ratio.1: as steps.0.with.aspect_ratio, "16x19" is not accepted; did you mean 16x9? ${ACCEPTED_RATIOS}`],
  ],
  [
    'a language code typo',
    head('  - id: clones\n    kind: ad_clone\n    matrix:\n      language: [de, frr, it]\n    with:\n      link: 00000000-0000-4000-8000-000000000000\n      video_url: https://example.com/ad.mp4\n      language: "{{ matrix.language }}"\n'),
    [expect.stringMatching(/^manifest\.yaml:7:22 {2}steps\.0\.matrix\.language\.1: as steps\.0\.with\.language, "frr" is not accepted; did you mean fr\? \(accepted: af, /)],
  ],
  [
    'a value an include entry adds',
    shorts('{ aspect_ratio: [9x16], include: [{ aspect_ratio: 9x16, style: Kawai }] }', 'aspect_ratio: "{{ matrix.aspect_ratio }}", style: "{{ matrix.style }}"'),
    [expect.stringMatching(/^manifest\.yaml:6:76 {2}steps\.0\.matrix\.include\.0\.style: as steps\.0\.with\.style, "Kawai" is not accepted; did you mean Kawaii\? \(accepted: /)],
  ],
  [
    'a value used through defaults.KIND',
    shorts('{ ratio: [9x16, 4x3] }', 'style: 3D', '').replace('steps:', 'defaults:\n  ai_short: { aspect_ratio: "{{ matrix.ratio }}" }\nsteps:'),
    [`manifest.yaml:8:29  steps.0.matrix.ratio.1: as defaults.ai_short.aspect_ratio, "4x3" is not accepted; did you mean 1x1? ${ACCEPTED_RATIOS}`],
  ],
  [
    'a step with rows and a matrix: still at the matrix value',
    shorts('{ aspect_ratio: [1x1, 16x19] }', 'aspect_ratio: "{{ matrix.aspect_ratio }}", style: 3D', '    for_each: { rows: [{ a: 1 }, { a: 2 }] }\n'),
    [`manifest.yaml:6:35  steps.0.matrix.aspect_ratio.1: as steps.0.with.aspect_ratio, "16x19" is not accepted; did you mean 16x9? ${ACCEPTED_RATIOS}`],
  ],
  [
    'a matrix value within text: at the field, where the text is written',
    shorts('{ n: [9, 16] }', 'aspect_ratio: "{{ matrix.n }}x16", style: 3D'),
    [`manifest.yaml:7:48  steps.0.with.aspect_ratio: "16x16" is not accepted; did you mean 9x16? ${ACCEPTED_RATIOS}`],
  ],
])('%s', async (_name, yaml, expected) => {
  expect(await problems({ 'manifest.yaml': yaml })).toEqual(expected);
});
