import type { PlannedJob } from '../plan/types.js';
import type { StepKind } from '../step-kinds.js';
import { flatText } from '../util/one-line.js';

/** Characters of a job's words the report keeps. Why 200: a card shows them whole, and 10,000 jobs of them stay a small page. */
export const JOB_WORDS_MAX = 200;

/**
 * Where each kind's request says what the job is, best first: dotted paths, `*` for every item
 * of a list (or value of an object). The first path holding any text gives the words; a kind
 * whose request holds none of its own (a video URL and a style, an id) has none.
 */
const WORDS_AT: Record<StepKind, readonly string[]> = {
  ai_short: ['script'],
  ai_editing: [],
  product_regen: ['video_prompt'],
  persona: ['creator_name'],
  persona_delete: [],
  voice_clone: ['name'],
  link: ['url'],
  link_with_params: ['title', 'description'],
  link_update: ['title', 'description'],
  html_ads: ['custom_prompt', 'promotion_info'],
  lipsync_v2: ['video_inputs.*.voice.input_text'],
  boreal: ['prompt'],
  ad_clone: [],
  text_generation: ['messages.*.content', 'system_instruction'],
  asset_generation: ['input_params.prompt'],
  custom_template: ['name', 'variables.*'],
  music: ['search', 'category'],
};

/**
 * The job's own words, as the report shows and searches them: the script of an AI Short, a
 * prompt, a link's title, a lipsync's texts (one after another)… on one line and cut to
 * JOB_WORDS_MAX characters with `…`; null when its kind has none or they are empty. A value that
 * is only a reference to another job's result (`{{ item.response_text }}`) is not its words yet.
 * Pure: from the planned job alone.
 */
export function jobWords(job: Pick<PlannedJob, 'kind' | 'request' | 'refs'>): string | null {
  const isReference = (text: string) => job.refs.some((ref) => ref.placeholder === text);
  for (const path of PATHS[job.kind]) {
    const texts = valuesAt(job.request, path).filter((value): value is string => typeof value === 'string')
      .map((text) => text.trim()).filter((text) => text !== '' && !isReference(text));
    if (texts.length > 0) return flatText(texts.join(' '), JOB_WORDS_MAX);
  }
  return null;
}

/** WORDS_AT's paths split once: 10,000 jobs are read for a report. */
const PATHS = Object.fromEntries(Object.entries(WORDS_AT).map(([kind, paths]) => [kind, paths.map((path) => path.split('.'))])) as Record<StepKind, string[][]>;

function valuesAt(value: unknown, path: readonly string[]): unknown[] {
  if (path.length === 0) return [value];
  if (value === null || typeof value !== 'object') return [];
  const [head, ...rest] = path as [string, ...string[]];
  const next = head === '*' ? Object.values(value) : [(value as Record<string, unknown>)[head]];
  return next.flatMap((item) => valuesAt(item, rest));
}
