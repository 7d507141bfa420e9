import { describe, expect, test } from 'vitest';
import { jobWords } from '../../src/report/job-words.js';
import type { PlannedJob } from '../../src/plan/types.js';

const job = (kind: PlannedJob['kind'], request: Record<string, unknown>, refs: PlannedJob['refs'] = []) => ({ kind, request, refs });

describe("a job's own words: the field of its request that best says what it is", () => {
  test.each([
    ['an AI Short: its script', job('ai_short', { script: 'Crêpes at dawn.', style: '3D' }), 'Crêpes at dawn.'],
    ['a Boreal video: its prompt', job('boreal', { prompt: 'A shoe in a stream', resolution: '720p' }), 'A shoe in a stream'],
    ['a link of your own: its title first', job('link_with_params', { title: 'Trail Runner 2', description: 'Light.' }), 'Trail Runner 2'],
    ['a link without a title: its description', job('link_update', { id: 'x', description: 'Light.' }), 'Light.'],
    [
      'a lipsync: its scenes\' texts, one after another',
      job('lipsync_v2', { video_inputs: [{ voice: { type: 'text', input_text: 'Hi!' } }, { voice: { type: 'audio', url: 'https://x/a.mp3' } }, { voice: { input_text: 'Bye.' } }] }),
      'Hi! Bye.',
    ],
    ['a text generation: its messages', job('text_generation', { messages: [{ role: 'user', content: 'Write a script.' }], system_instruction: 'Be brief.' }), 'Write a script.'],
    ['an asset: its prompt', job('asset_generation', { model_name: 'm', input_params: { prompt: 'A shoe on a rock' } }), 'A shoe on a rock'],
    ['HTML ads: the promotion when no prompt', job('html_ads', { link: 'l', style_ids: ['quiz-3q'], promotion_info: 'Free shipping' }), 'Free shipping'],
    ['a kind with no words of its own', job('ad_clone', { link: 'l', video_url: 'https://x/v.mp4', language: 'de' }), null],
    ['lines and runs of spaces become one space', job('ai_short', { script: '  One.\n\n  Two.\t' }), 'One. Two.'],
    ['empty', job('boreal', { prompt: '   ' }), null],
    [
      'only a reference to another job\'s result: not its words yet',
      job('ai_short', { script: '{{ item.response_text }}' }, [{ placeholder: '{{ item.response_text }}', jobKey: 'writer:1', field: 'response_text' }]),
      null,
    ],
  ])('%s', (_, planned, expected) => {
    expect(jobWords(planned)).toBe(expected);
  });

  test('cut at 200 characters, the last an ellipsis', () => {
    const script = 'abcdefghij'.repeat(30);
    expect(jobWords(job('ai_short', { script }))).toBe(`${script.slice(0, 199)}…`);
  });
});
