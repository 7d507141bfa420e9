/**
 * What `reelpipe init` writes: a starter manifest and its CSV, in `pipelines/`. Kept as text here
 * (the build copies only TypeScript) and checked by test/cli/init.test.ts: `reelpipe validate`
 * accepts them and `reelpipe run pipelines/starter.yaml --sandbox` runs them to exit 0.
 */
export interface StarterFile {
  /** Relative to the folder init runs in. */
  path: string;
  text: string;
}

const MANIFEST = `# A starter pipeline written by \`reelpipe init\`: one AI Short per row of starter.csv, with a
# track from the music library under each, and two playable HTML ads for a product page.
#
#   npx reelpipe validate pipelines/starter.yaml          check it (file, line and field of every problem)
#   npx reelpipe plan pipelines/starter.yaml              every job and its credits, offline
#   npx reelpipe run pipelines/starter.yaml --sandbox     try it on the built-in sandbox (free)
#   npx reelpipe run pipelines/starter.yaml               the real thing: needs REELPIPE_API_ID,
#                                                         REELPIPE_API_KEY and REELPIPE_BASE_URL
#
# What you can put in style_ids, model_name or a template's variables: \`npx reelpipe catalogue
# styles|models|musics|templates\`. Every kind of step has an example in reelpipe's examples/.
version: 1
name: starter
budget: { max_credits: 100 }     # refuse to spend more than this (exit 3)
concurrency: 4
outputs: ../out/starter          # relative to this file; sandbox runs use ../out/starter.sandbox
steps:
  - id: tune
    kind: music                  # a free lookup: the first track the query finds
    download: false
    with: { category: upbeat, page_size: 1 }

  - id: shorts
    kind: ai_short
    for_each: { csv: starter.csv }
    name: "{{ row.sku }}"
    with:
      script: "{{ row.script }}"
      style: Cinematic
      aspect_ratio: 9x16
      background_music_url: "{{ steps.tune.url }}"
      background_music_volume: 0.3

  - id: product
    kind: link                   # scrape a product page into a link (1 credit)
    download: false
    with: { url: https://shop.example.com/trail-runner-2 }

  - id: playables
    kind: html_ads               # 10 credits per style
    with:
      link: "{{ steps.product.id }}"
      style_ids: [scratch-card, quiz-3q]
`;

const CSV = `sku,script
TR2-BLK,"Meet the Trail Runner 2. Lighter, faster, and built for the long way home."
TR2-RED,"Red means go. The Trail Runner 2 in Ember Red: grip that holds, cushioning that lasts."
`;

export const STARTER_FILES: readonly StarterFile[] = [
  { path: 'pipelines/starter.yaml', text: MANIFEST },
  { path: 'pipelines/starter.csv', text: CSV },
];
