import { createClient } from '../../src/api/index.js';
import type { Project } from './harness.js';

/**
 * A batch of kinds the runner can reconcile (lipsync by time window, ad clones by list): a POST
 * whose answer was lost — to a kill, or with the state's database — must end in "found", never in
 * a second job. 21 jobs at concurrency 3, so a run stopped at some point still has work left.
 */
const LINES = ['the trail starts here', 'the river crossing', 'the summit at dawn', 'the long way down', 'the forest edge', 'the ridge walk', 'the old bridge', 'the valley floor', 'the high meadow', 'the last climb', 'the lake shore', 'the way home'];
const LANGUAGES = ['de', 'fr', 'it', 'es', 'pt', 'nl', 'pl', 'sv', 'da'];
export const RECONCILABLE_JOBS = LINES.length + LANGUAGES.length;

/** The manifest named `name`, its ad clones made from the link `linkId`. */
export const reconcilableManifest = (name: string, linkId: string) => `
version: 1
name: ${name}
outputs: out
concurrency: 3
steps:
  - id: talk
    kind: lipsync_v2
    for_each:
      rows:
${LINES.map((line, i) => `        - { text: "${i + 1}: ${line}." }`).join('\n')}
    with:
      video_inputs:
        - character: { type: avatar, avatar_id: 5eed0000-0000-4000-8000-000000000101 }
          voice: { type: text, input_text: "{{ row.text }}" }
  - id: clones
    kind: ad_clone
    estimate_credits: { low: 84, expected: 84, high: 168 }
    matrix: { language: [${LANGUAGES.join(', ')}] }
    name: "clone-{{ matrix.language }}"
    with: { link: ${linkId}, video_url: https://example.com/ads/reference.mp4, language: "{{ matrix.language }}" }
`;

/** Makes the link the ad clones are made from, at the project's sandbox; returns its id. */
export async function makeLink(project: Project): Promise<string> {
  const client = createClient({ baseUrl: project.sandbox.url, apiId: 'e2e-api-id', apiKey: 'e2e-api-key-secret' });
  const link = await client.links.createWithParams({ title: 'Trail Runner', image_urls: ['https://example.com/tr.jpg'] });
  await client.close();
  return link.id;
}
