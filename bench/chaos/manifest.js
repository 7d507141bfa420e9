// The soak's manifest: N jobs mixing kinds the runner can search for after a lost answer
// (lipsync_v2, ad_clone) with kinds it cannot (AI Shorts, HTML ads, Boreal), so both recovery
// paths — "found or proven absent" and "held in doubt for a person" — are exercised. Every job's
// request is unique, so the sandbox's duplicate counter counts only real double creations.
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** Share of the jobs per step; the rest of N goes to the first step. */
const SHARES = [
  ['shorts', 0.4],
  ['talk', 0.3],
  ['clones', 0.15],
  ['playables', 0.08],
  ['teasers', 0.07],
];
const STYLES = ['scratch-card', 'spin-wheel', 'quiz-3q', 'this-or-that', 'carousel', 'swipe-deck', 'hero-zoom', 'memory-match'];
const LANGUAGES = ['de', 'fr', 'es', 'it', 'nl', 'pt', 'pl', 'sv', 'ja', 'ko', 'tr', 'cs'];
const RATIOS = ['9x16', '16x9', '1x1'];
const WORDS = ['trail', 'river', 'summit', 'ridge', 'canyon', 'forest', 'meadow', 'glacier', 'harbour', 'dune'];

/** How many jobs each step gets for `total` jobs. */
export function jobCounts(total) {
  const counts = Object.fromEntries(SHARES.map(([step, share]) => [step, Math.floor(total * share)]));
  counts.shorts += total - Object.values(counts).reduce((a, b) => a + b, 0);
  return counts;
}

const csv = (header, rows) => `${header.join(',')}\n${rows.map((r) => r.map((v) => `"${String(v).replaceAll('"', '""')}"`).join(',')).join('\n')}\n`;
const phrase = (i) => `${WORDS[i % WORDS.length]} ${WORDS[Math.floor(i / WORDS.length) % WORDS.length]} number ${i}`;

/**
 * Writes `chaos.yaml` and its CSVs into `dir`; returns the manifest's path. `linkId` is a link
 * made beforehand (ad clones and HTML ads need one; made by the harness on a quiet sandbox so
 * no fault can leave it in doubt).
 */
export function writeManifest(dir, total, linkId) {
  const n = jobCounts(total);
  const range = (k) => Array.from({ length: k }, (_, i) => i);
  writeFileSync(path.join(dir, 'shorts.csv'), csv(['sku', 'script', 'ratio'], range(n.shorts).map((i) => [
    `SKU-${i}`, `Meet product ${i}: made for the ${phrase(i)}. Light, fast and built to last.`, RATIOS[i % 3],
  ])));
  writeFileSync(path.join(dir, 'talk.csv'), csv(['id', 'text'], range(n.talk).map((i) => [`T-${i}`, `Line ${i}: the ${phrase(i)} goes on.`])));
  writeFileSync(path.join(dir, 'clones.csv'), csv(['id', 'language', 'ratio'], range(n.clones).map((i) => [
    `C-${i}`, LANGUAGES[i % LANGUAGES.length], RATIOS[Math.floor(i / LANGUAGES.length) % 3],
  ])));
  // Two different styles per job (a style twice is refused): the second is 1 to 7 places on.
  const style = (i, offset) => STYLES[(i + offset) % STYLES.length];
  writeFileSync(path.join(dir, 'playables.csv'), csv(['id', 'a', 'b'], range(n.playables).map((i) => [
    `P-${i}`, style(i, 0), style(i, 1 + (Math.floor(i / STYLES.length) % (STYLES.length - 1))),
  ])));
  writeFileSync(path.join(dir, 'teasers.csv'), csv(['id', 'prompt'], range(n.teasers).map((i) => [`B-${i}`, `Slow aerial shot over the ${phrase(i)} at dawn`])));
  const file = path.join(dir, 'chaos.yaml');
  writeFileSync(file, `version: 1
name: chaos
outputs: out
concurrency: 64
steps:
  - id: shorts
    kind: ai_short
    for_each: { csv: shorts.csv }
    name: "{{ row.sku }}"
    with: { script: "{{ row.script }}", style: Cinematic, aspect_ratio: "{{ row.ratio }}" }
  - id: talk
    kind: lipsync_v2
    for_each: { csv: talk.csv }
    name: "{{ row.id }}"
    with:
      video_inputs:
        - character: { type: avatar, avatar_id: 5eed0000-0000-4000-8000-000000000101 }
          voice: { type: text, input_text: "{{ row.text }}" }
  - id: clones
    kind: ad_clone
    # Each reference lasts 30 s (the URL's media fragment): 84 credits, as the sandbox prices it.
    estimate_credits: { low: 84, expected: 84, high: 84 }
    for_each: { csv: clones.csv }
    name: "{{ row.id }}"
    with:
      link: ${linkId}
      video_url: "https://example.com/ads/{{ row.id }}.mp4#t=0,30"
      language: "{{ row.language }}"
      aspect_ratio: "{{ row.ratio }}"
  - id: playables
    kind: html_ads
    for_each: { csv: playables.csv }
    name: "{{ row.id }}"
    with:
      link: ${linkId}
      style_ids: ["{{ row.a }}", "{{ row.b }}"]
      promotion_info: "Offer {{ row.id }}: free shipping"
  - id: teasers
    kind: boreal
    for_each: { csv: teasers.csv }
    name: "{{ row.id }}"
    with: { prompt: "{{ row.prompt }}", resolution: 720p, duration: 5, aspect_ratio: "16:9" }
`);
  return file;
}
