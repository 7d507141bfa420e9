import pLimit from 'p-limit';
import type { ServiceClient } from '../../api/index.js';
import * as s from '../../api/schemas/index.js';

/** What `reelpipe catalogue NAME` shows: one list the service (or the sandbox) offers. */
export interface Catalogue {
  name: CatalogueName;
  /** Where a manifest uses these values. */
  usedAs: string;
  /** False when the service has no operation that lists these (voices, avatars). */
  listed: boolean;
  columns: string[];
  rows: string[][];
  /** The items as the service gave them (for --json). */
  items: unknown[];
  /** What else a manifest author needs: fixed values, what was cut, what cannot be listed. */
  notes: string[];
}

export const CATALOGUE_NAMES = ['styles', 'models', 'musics', 'templates', 'voices', 'avatars'] as const;
export type CatalogueName = (typeof CATALOGUE_NAMES)[number];

/** Options of the lists that take a query. */
export interface CatalogueQuery {
  /** musics: one category. */
  category?: string;
  /** musics: a name or category to search for. */
  search?: string;
  /** voices, avatars: ids to read (the sandbox's fixtures when run with --sandbox). */
  ids?: readonly string[];
}

/**
 * Bounds on what one command reads. Why: the music library is paged and a template's variables
 * take one read each; an account with a huge library must not turn a look-up into thousands of
 * requests. What is cut is said in the notes, with how to narrow the query.
 */
export const MAX_MUSIC_PAGES = 50;
export const MUSIC_PAGE_SIZE = 100;
export const MAX_TEMPLATE_DETAILS = 100;
/** Template details read at once: a few, so a long list is quick without a burst of requests (429s). */
const TEMPLATE_READS_AT_ONCE = 4;

const fixed = (field: string, values: readonly string[]) => `${field}: ${values.join(', ')} (fixed by the service's interface; not listed by it)`;

async function styles(client: ServiceClient): Promise<Catalogue> {
  const items = await client.htmlAds.styles();
  const notes = [
    fixed('ai_short style', s.AI_SHORT_STYLES),
    fixed('ai_editing editing_style', s.EDITING_STYLES),
    '`style_ids: all` is every style of this list, as the service gives it when the manifest is planned',
  ];
  const rows = items.map((style) => [style.id, style.name, style.type ?? '', style.interactive === undefined ? '' : style.interactive ? 'yes' : 'no']);
  return { name: 'styles', usedAs: 'html_ads style_ids', listed: true, columns: ['id', 'name', 'type', 'interactive'], rows, items, notes };
}

async function models(client: ServiceClient): Promise<Catalogue> {
  const items = await client.assetGenerator.schemas();
  const rows = items.map((model) => {
    const required = new Set(model.input_params_schema.required ?? []);
    const others = Object.keys(model.input_params_schema.properties).filter((name) => !required.has(name));
    return [model.model_name, model.generation_type, [...required].join(', '), others.join(', ')];
  });
  const notes = [
    fixed('boreal model', s.BOREAL_MODELS),
    fixed('lipsync_v2 and custom_template model_version', s.MODEL_VERSIONS),
    'text_generation model_name: the service has no operation that lists text models',
  ];
  return { name: 'models', usedAs: 'asset_generation model_name (input_params per model)', listed: true, columns: ['model_name', 'generation type', 'required input_params', 'other input_params'], rows, items, notes };
}

async function musics(client: ServiceClient, query: CatalogueQuery): Promise<Catalogue> {
  const items: s.Music[] = [];
  let count = 0;
  let page = 1;
  for (; page <= MAX_MUSIC_PAGES; page++) {
    const answer = await client.musics.list({ page, page_size: MUSIC_PAGE_SIZE, category: query.category, search: query.search });
    count = answer.count;
    items.push(...answer.results);
    if (answer.results.length === 0 || items.length >= count) break;
  }
  const notes = items.length < count ? [`first ${items.length} of ${count} tracks shown (at most ${MAX_MUSIC_PAGES} pages): narrow with --category or --search`] : [];
  notes.push('a music step takes the query (category, search, page, page_size) and yields the first track: {{ steps.ID.url }}');
  const rows = items.map((track) => [String(track.id), track.name, (track.category ?? []).join(', '), track.duration === undefined ? '' : `${track.duration}s`]);
  return { name: 'musics', usedAs: 'music steps (category, search) and background_music_url', listed: true, columns: ['id', 'name', 'category', 'length'], rows, items, notes };
}

async function templates(client: ServiceClient): Promise<Catalogue> {
  const entries = await client.customTemplates.list();
  const inTurn = pLimit(TEMPLATE_READS_AT_ONCE);
  const details = await Promise.all(entries.slice(0, MAX_TEMPLATE_DETAILS).map((entry) => inTurn(() => client.customTemplates.get(entry.template_id))));
  const items = [...details, ...entries.slice(MAX_TEMPLATE_DETAILS)];
  const rows = items.map((t) => {
    const variables = 'variables' in t ? Object.entries(t.variables as Record<string, { type: string }>).map(([name, v]) => `${name} (${v.type})`).join(', ') : '(not read)';
    return [t.template_id, t.name ?? '', t.aspect_ratio ?? '', variables];
  });
  const notes = entries.length > MAX_TEMPLATE_DETAILS ? [`variables read for the first ${MAX_TEMPLATE_DETAILS} of ${entries.length} templates`] : [];
  notes.push('variables: text takes a string; image, video and audio a URL; avatar {avatar_id: UUID}; voiceover {voice_id: UUID}');
  return { name: 'templates', usedAs: 'custom_template template_id and variables', listed: true, columns: ['template_id', 'name', 'aspect', 'variables'], rows, items, notes };
}

/**
 * Avatars (personas) and voices: the service offers no list of either — only creating one
 * (personas_v2, voices), reading an avatar by id and deleting it — so nothing is invented here:
 * the catalogue says so, and reads the avatars whose ids it is given (with --sandbox, the
 * sandbox's fixtures, whose ids are documented), showing each one's voice.
 */
async function avatars(client: ServiceClient, query: CatalogueQuery, name: 'avatars' | 'voices'): Promise<Catalogue> {
  const items = await Promise.all((query.ids ?? []).map((id) => client.personas.get(id)));
  const voiceOf = (a: s.Persona) => String((a as Record<string, unknown>).voice_id ?? a.matching_voice_non_null ?? '');
  const rows = items.map((a) => (name === 'avatars' ? [a.id, a.creator_name ?? '', a.process_status, voiceOf(a)] : [voiceOf(a), `voice of avatar ${a.id}`, a.creator_name ?? '']));
  const columns = name === 'avatars' ? ['id', 'creator', 'process status', 'voice'] : ['voice id', 'from', 'creator'];
  const usedAs = name === 'avatars' ? 'avatar_id (lipsync_v2 characters, template avatar variables)' : 'voice_id (lipsync_v2 voices, template voiceover variables)';
  const notes = [
    `the service has no operation that lists ${name}: use the ids of your own ${name === 'avatars' ? 'avatars (a persona step\'s result, or the web app)' : 'voices (a voice_clone step\'s result, an avatar\'s voice, or the web app)'}`,
    ...(items.length > 0 ? ['shown: the sandbox\'s fixtures (docs/sandbox.md#fixtures), read from it'] : []),
  ];
  return { name, usedAs, listed: false, columns, rows, items, notes };
}

/** Reads one catalogue from the service. */
export function readCatalogue(client: ServiceClient, name: CatalogueName, query: CatalogueQuery = {}): Promise<Catalogue> {
  switch (name) {
    case 'styles':
      return styles(client);
    case 'models':
      return models(client);
    case 'musics':
      return musics(client, query);
    case 'templates':
      return templates(client);
    case 'avatars':
    case 'voices':
      return avatars(client, query, name);
  }
}
