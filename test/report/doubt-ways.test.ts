import { describe, expect, test } from 'vitest';
import { waysFor } from '../../src/report/doubt-report.js';

const WEBHOOK_WAY = /adopts it when the service delivers to this attempt/;

describe('what `reelpipe doubt` offers for a job held in doubt', () => {
  test('an AI Short whose run listened for webhooks can be adopted from a delivery', () => {
    expect(waysFor('ai_short', undefined, true, 'm.yaml', 'short-1').join('\n')).toMatch(WEBHOOK_WAY);
  });

  test('without a listening run, no delivery is promised', () => {
    expect(waysFor('ai_short', undefined, false, 'm.yaml', 'short-1').join('\n')).not.toMatch(WEBHOOK_WAY);
  });

  test('a template render never had its own address, so no delivery is promised even when the run listened', () => {
    const ways = waysFor('custom_template', 'render', true, 'm.yaml', 'render-1');
    expect(ways.join('\n')).not.toMatch(WEBHOOK_WAY);
    expect(ways.at(-2)).toMatch(/reelpipe resolve m.yaml "render-1" --adopt REMOTE_ID/);
  });

  test('a template preview, which had one, is offered the delivery', () => {
    expect(waysFor('custom_template', 'preview', true, 'm.yaml', 'p-1').join('\n')).toMatch(WEBHOOK_WAY);
  });
});
