// What every client of a benchmark is asked to make: N AI Shorts (or N lipsyncs), job i with
// script i. Every script has eight words, so every job has the same spoken length (6 s) and the
// same life in the service: an AI Short 2 + 1 + 4 × 6 = 27 s of service time, a lipsync
// 2 + 1 + 3 × 6 = 21 s, each divided by the sandbox's speed.
import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** The sandbox's fixture avatar (every sandbox account has it, done), for the lipsyncs. */
const AVATAR_ID = '5eed0000-0000-4000-8000-000000000101';

/** Script i: eight words whatever i is. */
export function scriptFor(i) {
  return `Product ${i}: light, fast and made to last.`;
}

/**
 * The two kinds the benchmarks make: the service's path, the field holding the output's URL,
 * job i's creation body (as reelpipe sends it for the manifest below) and the manifest's step.
 */
export const KINDS = {
  ai_short: {
    path: '/api/ai_shorts/',
    output: 'video_output',
    body: (i) => ({ aspect_ratio: '9x16', script: scriptFor(i), style: 'Cinematic' }),
    step: `kind: ai_short
    with: { script: "{{ row.script }}", style: Cinematic, aspect_ratio: 9x16 }`,
  },
  lipsync: {
    path: '/api/lipsyncs_v2/',
    output: 'output',
    body: (i) => ({ video_inputs: [{ character: { type: 'avatar', avatar_id: AVATAR_ID }, voice: { type: 'text', input_text: scriptFor(i) } }] }),
    step: `kind: lipsync_v2
    with:
      video_inputs:
        - character: { type: avatar, avatar_id: ${AVATAR_ID} }
          voice: { type: text, input_text: "{{ row.script }}" }`,
  },
};

/** The manifest's default limit of jobs a step (and a manifest); a bench of more raises it. */
const DEFAULT_JOB_LIMIT = 100_000;

/**
 * Writes DIR/rows.csv (one row per job) and DIR/bench.yaml, a manifest making one job of `kind`
 * per row with `concurrency` in flight, its files into DIR/out — its limits raised when `jobs` is
 * above the default. Returns the manifest's path.
 */
export function writeManifest(dir, { kind, jobs, concurrency }) {
  const rows = ['sku,script'];
  for (let i = 0; i < jobs; i++) rows.push(`SKU-${i},"${scriptFor(i)}"`);
  writeFileSync(path.join(dir, 'rows.csv'), `${rows.join('\n')}\n`);
  const manifest = path.join(dir, 'bench.yaml');
  writeFileSync(manifest, `version: 1
name: bench
outputs: out
concurrency: ${concurrency}
${jobs > DEFAULT_JOB_LIMIT ? `limits: { jobs_per_step: ${jobs}, jobs_per_manifest: ${jobs}, data_file_mb: 500 }\n` : ''}steps:
  - id: jobs
    for_each: { csv: rows.csv }
    name: "{{ row.sku }}"
    ${KINDS[kind].step}
`);
  return manifest;
}
