import { describe, expect, test } from 'vitest';
import { problems } from './helpers/temp-tree.js';

/**
 * Every validation rule, each with an invalid manifest and the exact lines `reelpipe validate`
 * prints: FILE:LINE:COL  path: message (accepted: …).
 */
const SHORT = `  - id: shorts
    kind: ai_short
    with: { script: Hello there, aspect_ratio: 9x16, style: Cinematic }
`;
/** The last line when part of a manifest could not be checked yet. */
const stopped = (steps: string) => `… not fully checked yet: ${steps}; further checks run once these are fixed`;
const YAML_NOTE = "… the manifest's fields are not checked yet; further checks run once these are fixed";
const head = (steps: string, top = '') => `version: 1\nname: test\n${top}steps:\n${steps}`;

describe('YAML and the manifest shape', () => {
  test.each([
    ['YAML syntax', 'version: 1\nname: [unclosed\n', ['manifest.yaml:3:1  YAML: Flow sequence in block collection must be sufficiently indented and end with a ]', YAML_NOTE]],
    ['an unclosed quote, at the quote that opens', head(SHORT.replace('Hello there', '"Hello there').replace('style: Cinematic }', 'style: Cinematic }\n  - id: b\n    kind: link')), ['manifest.yaml:6:21  YAML: the " opened here is never closed', 'manifest.yaml:9:1  YAML: Flow map in block collection must be sufficiently indented and end with a }', YAML_NOTE]],
    ["an unclosed ' quote", head(`  - id: b\n    kind: link\n    with:\n      url: 'https://example.com\n  - id: c\n`), ["manifest.yaml:7:12  YAML: the ' opened here is never closed", YAML_NOTE]],
    ['a duplicate key', 'version: 1\nversion: 1\nname: t\nsteps: []\n', ['manifest.yaml:2:1  YAML: Map keys must be unique', YAML_NOTE]],
    ['a wrong version', head(SHORT).replace('version: 1', 'version: 2'), ['manifest.yaml:1:10  version: must be 1, got 2']],
    ['a missing name', `version: 1\nsteps:\n${SHORT}`, ['manifest.yaml:1:1  name: is required']],
    ['an unknown top-level key', head(SHORT, 'concurency: 8\n'), ['manifest.yaml:3:1  concurency: unknown field; did you mean concurrency? (accepted: $schema, version, name, project, description, budget, concurrency, kind_concurrency, retries, outputs, limits, defaults, hooks, notify, steps)']],
    ['a concurrency out of range', head(SHORT, 'concurrency: 0\n'), ['manifest.yaml:3:14  concurrency: must be at least 1, got 0']],
    ['a concurrency above 1,000', head(SHORT, 'concurrency: 1001\n'), ['manifest.yaml:3:14  concurrency: must be at most 1000, got 1001']],
    ['a kind concurrency above 1,000', head(SHORT, 'kind_concurrency: { ai_short: 5000 }\n'), ['manifest.yaml:3:31  kind_concurrency.ai_short: must be at most 1000, got 5000']],
    ['a negative budget', head(SHORT, 'budget: { max_credits: -5 }\n'), ['manifest.yaml:3:24  budget.max_credits: must be above 0, got -5']],
    ['an unknown kind', head(SHORT.replace('ai_short', 'ai_shorts')), ['manifest.yaml:5:11  steps.0.kind: "ai_shorts" is not accepted; did you mean ai_short? (accepted: ai_short, ai_editing, product_regen, persona, persona_delete, voice_clone, link, link_with_params, link_update, html_ads, lipsync_v2, boreal, ad_clone, text_generation, asset_generation, custom_template, music)', stopped('steps.0 (shorts)')]],
    ['a bad step id', head(SHORT.replace('id: shorts', 'id: My Shorts')), ['manifest.yaml:4:9  steps.0.id: must be lower case letters, digits, _ or -, starting with a letter, got "My Shorts"', stopped('steps.0 (My Shorts)')]],
    ['an unknown defaults kind', head(SHORT, 'defaults: { ai_shorts: {} }\n'), ['manifest.yaml:3:13  defaults.ai_shorts: unknown field; did you mean ai_short? (accepted: ai_short, ai_editing, product_regen, persona, persona_delete, voice_clone, link, link_with_params, link_update, html_ads, lipsync_v2, boreal, ad_clone, text_generation, asset_generation, custom_template, music)']],
    ['an estimate of the wrong type', head(`${SHORT}    estimate_credits: lots\n`), ['manifest.yaml:7:23  steps.0.estimate_credits: expected a number or an object {low, expected, high}, got "lots"', stopped('steps.0 (shorts)')]],
    ['no steps', 'version: 1\nname: t\nsteps: []\n', ['manifest.yaml:3:8  steps: needs at least 1 item']],
  ])('%s', async (_, yaml, expected) => {
    expect(await problems({ 'manifest.yaml': yaml })).toEqual(expected);
  });
});

describe('cross-field rules', () => {
  test.each([
    ['duplicate step ids', head(SHORT + SHORT), ['manifest.yaml:7:9  steps.1.id: duplicate step id "shorts" (first used by steps.0)']],
    [
      'for_each with two sources',
      head(`${SHORT}    for_each: { csv: a.csv, jsonl: b.jsonl }\n`),
      [
        'manifest.yaml:7:15  steps.0.for_each: takes exactly one of rows, csv, jsonl, step (got csv, jsonl)',
        'manifest.yaml:7:15  steps.0.for_each: a.csv: file not found',
        stopped('steps.0 (shorts)'),
      ],
    ],
    ['mode on another kind', head(`${SHORT}    mode: preview\n`), ['manifest.yaml:7:11  steps.0.mode: applies only to kind custom_template (this step is ai_short)']],
    [
      'an estimate out of order',
      head(`${SHORT}    estimate_credits: { low: 5, expected: 3, high: 9 }\n`),
      ['manifest.yaml:7:23  steps.0.estimate_credits: needs low <= expected <= high'],
    ],
    [
      'a malformed placeholder',
      head(SHORT.replace('Hello there', '"{{ rows.text }}"')),
      ['manifest.yaml:6:21  steps.0.with.script: unknown placeholder (accepted: row.COLUMN, matrix.AXIS, env.NAME, steps.ID.FIELD, item.FIELD) in {{ rows.text }}', stopped('steps.0 (shorts)')],
    ],
    [
      'a step reference without a field',
      head(SHORT.replace('Hello there', '"{{ steps.other }}"')),
      ['manifest.yaml:6:21  steps.0.with.script: a step reference needs a field: {{ steps.ID.FIELD }} in {{ steps.other }}', stopped('steps.0 (shorts)')],
    ],
    [
      'a reference to an unknown step',
      head(SHORT.replace('Hello there', '"{{ steps.writer.response_text }}"')),
      ['manifest.yaml:6:21  steps.0.with.script: {{ steps.writer.response_text }}: no step "writer" (steps: shorts)'],
    ],
    [
      'a misspelt step id in a reference, with the one meant',
      head(`  - id: writer\n    kind: text_generation\n    with: { model_name: m, messages: [{ role: user, content: hi }] }\n${SHORT.replace('Hello there', '"{{ steps.writr.response_text }}"')}`),
      ['manifest.yaml:9:21  steps.1.with.script: {{ steps.writr.response_text }}: no step "writr"; did you mean writer? (steps: writer, shorts)'],
    ],
    ['needs an unknown step', head(`${SHORT}    needs: [nope]\n`), ['manifest.yaml:7:13  steps.0.needs.0: no step "nope" (steps: shorts)']],
    ['needs a misspelt step', head(`${SHORT}    needs: [short]\n`), ['manifest.yaml:7:13  steps.0.needs.0: no step "short"; did you mean shorts? (steps: shorts)']],
    [
      'for_each a misspelt step',
      head(`${SHORT}  - id: more\n    kind: link\n    for_each: { step: shrts }\n    with: { url: "{{ item.video_output }}" }\n`),
      ['manifest.yaml:9:23  steps.1.for_each.step: no step "shrts"; did you mean shorts? (steps: shorts, more)'],
    ],
    [
      'a reference to a field the result lacks',
      head(`  - id: product\n    kind: link\n    with: { url: https://example.com/p }\n${SHORT.replace('Hello there', '"{{ steps.product.titel }}"')}`),
      ['manifest.yaml:9:21  steps.1.with.script: {{ steps.product.titel }}: a link result has no field "titel" (accepted: id, url, title, description, image_urls, video_urls, reviews, logo_url, ai_summary, ai_industry, ai_target_audiences)'],
    ],
    [
      'a reference to a step that yields nothing',
      head(`  - id: gone\n    kind: persona_delete\n    with: { id: 123e4567-e89b-12d3-a456-426614174000 }\n${SHORT.replace('Hello there', '"{{ steps.gone.id }}"')}`),
      ['manifest.yaml:9:21  steps.1.with.script: {{ steps.gone.id }}: a persona_delete step yields no result to reference'],
    ],
    [
      'item without for_each step',
      head(SHORT.replace('Hello there', '"{{ item.response_text }}"')),
      ['manifest.yaml:6:21  steps.0.with.script: {{ item.response_text }} needs for_each: { step: ID } on this step'],
    ],
    [
      'an unclosed placeholder',
      head(SHORT.replace('Hello there', '"Hi {{ row.name "')),
      ['manifest.yaml:6:21  steps.0.with.script: unclosed placeholder: "{{ row.name " has no closing }}', stopped('steps.0 (shorts)')],
    ],
    [
      'an unclosed placeholder before a closed one',
      head(`${SHORT.replace('Hello there', '"{{ row.a and {{ row.b }}"')}    for_each: { rows: [{ a: 1, b: 2 }] }\n`),
      ['manifest.yaml:6:21  steps.0.with.script: unclosed placeholder: "{{ row.a and " has no closing }}', stopped('steps.0 (shorts)')],
    ],
    ['row without rows', head(SHORT.replace('Hello there', '"{{ row.text }}"')), ['manifest.yaml:6:21  steps.0.with.script: {{ row.text }} needs for_each: { rows | csv | jsonl } on this step', stopped('steps.0 (shorts)')]],
    [
      'an unknown matrix axis',
      head(`${SHORT.replace('9x16', '"{{ matrix.ratio }}"')}    matrix: { aspect_ratio: [9x16, 1x1] }\n`),
      ['manifest.yaml:6:48  steps.0.with.aspect_ratio: {{ matrix.ratio }}: no matrix axis "ratio" (axes: aspect_ratio)', stopped('steps.0 (shorts)')],
    ],
    ['an unset environment variable', head(SHORT.replace('Hello there', '"{{ env.SCRIPT }}"')), ['manifest.yaml:6:21  steps.0.with.script: {{ env.SCRIPT }}: environment variable SCRIPT is not set', stopped('steps.0 (shorts)')]],
    [
      'a credential from the environment',
      head(SHORT.replace('Hello there', '"{{ env.REELPIPE_API_KEY }}"')),
      ['manifest.yaml:6:21  steps.0.with.script: credentials never go in a manifest: set REELPIPE_API_ID and REELPIPE_API_KEY in the environment', stopped('steps.0 (shorts)')],
    ],
    [
      'a credential key in the manifest',
      head(SHORT, 'api_key: abc123\n'),
      ['manifest.yaml:3:1  api_key: credentials never go in a manifest: set REELPIPE_API_ID and REELPIPE_API_KEY in the environment'],
    ],
    [
      'a credential key in a request',
      head(SHORT.replace('style: Cinematic', 'style: Cinematic, X-API-KEY: abc')),
      ['manifest.yaml:6:72  steps.0.with.X-API-KEY: credentials never go in a manifest: set REELPIPE_API_ID and REELPIPE_API_KEY in the environment', stopped('steps.0 (shorts)')],
    ],
    [
      'a run-time value in a file name',
      head(`${SHORT}    name: "{{ steps.shorts.id }}"\n`),
      ['manifest.yaml:7:11  steps.0.name: {{ steps.shorts.id }} is only known at run time (accepted here: row.COLUMN, matrix.AXIS, env.NAME)'],
    ],
    [
      'a cycle',
      head(`  - id: a\n    kind: link\n    needs: [b]\n    with: { url: https://example.com/a }\n  - id: b\n    kind: link\n    needs: [a]\n    with: { url: https://example.com/b }\n`),
      ['manifest.yaml:4:9  steps.0.id: steps depend on each other in a cycle: a → b → a', stopped('steps.0 (a), steps.1 (b)')],
    ],
  ])('%s', async (_, yaml, expected) => {
    expect(await problems({ 'manifest.yaml': yaml })).toEqual(expected);
  });
});

describe('row files', () => {
  const csvStep = (file: string) => head(`${SHORT.replace('Hello there', '"{{ row.script }}"')}    for_each: { csv: ${file} }\n`);

  test.each([
    ['a missing CSV file', { 'manifest.yaml': csvStep('nope.csv') }, ['manifest.yaml:7:15  steps.0.for_each: nope.csv: file not found', stopped('steps.0 (shorts)')]],
    ['a CSV without the column', { 'manifest.yaml': csvStep('s.csv'), 's.csv': 'sku,text\na,hello\n' }, ['manifest.yaml:6:21  steps.0.with.script: {{ row.script }}: s.csv has no column script (columns: sku, text)', stopped('steps.0 (shorts)')]],
    ['a CSV with a ragged row', { 'manifest.yaml': csvStep('s.csv'), 's.csv': 'sku,script\na,hello\nb,hi,extra\n' }, ['s.csv:3:6  CSV: this row has 3 values but the header has 2 columns (sku, script); a value holding a comma goes in quotes: "Lisbon, Portugal"', stopped('steps.0 (shorts)')]],
    ['an unclosed quote', { 'manifest.yaml': csvStep('s.csv'), 's.csv': 'sku,script\na,"hello\n' }, ['s.csv:2:3  CSV: column script opens a quote (") that is never closed, so the rest of the file would be one value; add the closing quote where the value ends (a quote inside a quoted value is written twice: "say ""hi""")', stopped('steps.0 (shorts)')]],
    [
      'every broken record, not only the first',
      { 'manifest.yaml': csvStep('s.csv'), 's.csv': 'sku,script\na,hello\nb,hi,extra\n\nc,"two\nlines",more\nd\ne,fine\n' },
      [
        's.csv:3:6  CSV: this row has 3 values but the header has 2 columns (sku, script); a value holding a comma goes in quotes: "Lisbon, Portugal"',
        's.csv:6:8  CSV: this row has 3 values but the header has 2 columns (sku, script); a value holding a comma goes in quotes: "Lisbon, Portugal"',
        's.csv:7:1  CSV: this row has 1 value but the header has 2 columns (sku, script); give each column a value (an empty one is nothing between two commas: a,,c)',
        stopped('steps.0 (shorts)'),
      ],
    ],
    [
      // csv-parse's own recovery read on inside the bad quote: "Quote Not Closed" at line 9 (no
      // quote there), and the record-length errors of lines 4 and 7 were never seen.
      'several syntax errors, each at its own line: the parse starts again on the line after a bad quote',
      { 'manifest.yaml': csvStep('s.csv'), 's.csv': 'sku,script\na,"bad" quote\nb,ok\nc,too,many\nd,x"y"\ne,"two\nlines",fine,extra\ng,"unclosed\nh,x,y\n' },
      [
        's.csv:2:3  CSV: in column script, a closing quote is followed by a space instead of a comma or the end of the line; a quote inside a quoted value is written twice: "say ""hi"""',
        's.csv:4:7  CSV: this row has 3 values but the header has 2 columns (sku, script); a value holding a comma goes in quotes: "Lisbon, Portugal"',
        's.csv:5:3  CSV: column script has a quote (") in a value that is not in quotes; put the value in quotes and write each quote in it twice: "x""y"""',
        's.csv:7:8  CSV: this row has 4 values but the header has 2 columns (sku, script); a value holding a comma goes in quotes: "Lisbon, Portugal"',
        's.csv:8:3  CSV: column script opens a quote (") that is never closed, so the rest of the file would be one value; add the closing quote where the value ends (a quote inside a quoted value is written twice: "say ""hi""")',
        's.csv:9:5  CSV: this row has 3 values but the header has 2 columns (sku, script); a value holding a comma goes in quotes: "Lisbon, Portugal"',
        stopped('steps.0 (shorts)'),
      ],
    ],
    [
      'a column named twice in the header',
      { 'manifest.yaml': csvStep('s.csv'), 's.csv': 'sku,script,notes,script\na,hello,x,again\n' },
      ['s.csv:1:18  CSV: column "script" appears twice in the header (first as column 2): a row\'s value for it would be ambiguous', stopped('steps.0 (shorts)')],
    ],
    [
      'a JSONL line that is not JSON',
      { 'manifest.yaml': csvStep('s.jsonl').replace('csv:', 'jsonl:'), 's.jsonl': '{"script": "a"}\n{"script": \n' },
      ['s.jsonl:2  JSONL: Unexpected end of JSON input', stopped('steps.0 (shorts)')],
    ],
    ['a JSONL line that is not an object', { 'manifest.yaml': csvStep('s.jsonl').replace('csv:', 'jsonl:'), 's.jsonl': '[1, 2]\n' }, ['s.jsonl:1  JSONL: each line must be a JSON object', stopped('steps.0 (shorts)')]],
  ])('%s', async (_, files, expected) => {
    expect(await problems(files)).toEqual(expected);
  });
});

describe('requests, checked per job by the client schemas', () => {
  test.each([
    [
      'a bad enum value in the manifest',
      head(SHORT.replace('Cinematic', 'Cinema')),
      ['manifest.yaml:6:61  steps.0.with.style: "Cinema" is not accepted; did you mean Cinematic? (accepted: 4K realistic, 3D, Cinematic, Cartoonish, Line art, Pixel art, Mysterious, Steam punk, Collage, Kawaii)'],
    ],
    [
      'an unknown request field',
      head(SHORT.replace('style: Cinematic', 'style: Cinematic, voice: x')),
      ['manifest.yaml:6:72  steps.0.with.voice: unknown field (accepted: aspect_ratio, script, style, accent, name, brand, caption_setting, background_music_url, background_music_volume, voiceover_volume, webhook_url)'],
    ],
    ['a missing required field, at the step\'s with:', head(SHORT.replace('script: Hello there, ', '')), ['manifest.yaml:6:5  steps.0.with.script: is required']],
    [
      'missing fields of a block map, at its with: and not at another line',
      head('  - id: shorts\n    kind: ai_short\n    with:\n      style: Cinematic\n      caption_setting:\n        font_size: 12\n'),
      ['manifest.yaml:6:5  steps.0.with.aspect_ratio: is required (accepted: 9x16, 16x9, 1x1)', 'manifest.yaml:6:5  steps.0.with.script: is required'],
    ],
    [
      'a missing field of a nested map, at that map\'s key',
      head('  - id: talk\n    kind: lipsync_v2\n    with:\n      video_inputs:\n        - voice: { type: text, input_text: hi }\n          character:\n            avatar_id: 123e4567-e89b-12d3-a456-426614174000\n'),
      ['manifest.yaml:9:11  steps.0.with.video_inputs.0.character.type: is required (must be "avatar")'],
    ],
    [
      'a misspelt request field, with the one meant',
      head('  - id: ads\n    kind: html_ads\n    with: { link: 123e4567-e89b-12d3-a456-426614174000, style_ids: [quiz-3q], promo_info: 20% off }\n'),
      ['manifest.yaml:6:79  steps.0.with.promo_info: unknown field; did you mean promotion_info? (accepted: link, style_ids, promotion_info, custom_prompt, max_size_mb, webhook_url)'],
    ],
    [
      'an HTML ad style chosen twice',
      head('  - id: ads\n    kind: html_ads\n    with: { link: 123e4567-e89b-12d3-a456-426614174000, style_ids: [quiz-3q, carousel, quiz-3q] }\n'),
      ['manifest.yaml:6:88  steps.0.with.style_ids.2: "quiz-3q" is chosen twice (first as style_ids.0): each style makes one paid ad, so list it once'],
    ],
    [
      'a limit',
      head(`  - id: ads\n    kind: html_ads\n    with: { link: 123e4567-e89b-12d3-a456-426614174000, style_ids: [quiz-3q], max_size_mb: 16 }\n`),
      ['manifest.yaml:6:92  steps.0.with.max_size_mb: must be at most 15, got 16'],
    ],
    [
      'a Boreal cross-field rule',
      head(`  - id: clip\n    kind: boreal\n    with: { prompt: waves, model: boreal-h3, duration: 8, aspect_ratio: "16:9" }\n`),
      ['manifest.yaml:6:73  steps.0.with.aspect_ratio: boreal-h3 accepts only auto'],
    ],
    [
      'a value from the defaults',
      head(SHORT.replace('style: Cinematic', 'caption_setting: { style: neo }'), 'defaults:\n  ai_short:\n    style: Cinematic\n    caption_setting: { font_family: Comic }\n'),
      ['manifest.yaml:6:37  defaults.ai_short.caption_setting.font_family: "Comic" is not accepted (accepted: Montserrat, Jockey One, Lilita One, Mclaren, Corben, Dela Gothic One, Comfortaa, Luckiest Guy, Quantico, Poppins, Arimo, Open Sans, League Spartan, Anton, DM Sans, Archivo Black, Space Grotesk, Alice, Pacifico, Lora, Comic Neue, Cinzel, Playfair Display, Bodoni Moda, Alata, Orbitron, IBM Plex Mono, Stalemate, Tektur, Fredoka, Radio Canada, Abril Fatface, Allura, Ballet, Noto Serif, Joti One, Berkshire Swash, Rubik Dirt, Figtree, Roboto, Oswald)'],
    ],
    [
      'a path id that is not a UUID',
      head(`  - id: regen\n    kind: product_regen\n    with: { id: task-7, video_prompt: slower }\n`),
      ['manifest.yaml:6:17  steps.0.with.id: must be a UUID like 123e4567-e89b-12d3-a456-426614174000, got "task-7"'],
    ],
    [
      'a reference to a step of many jobs',
      head(`  - id: links\n    kind: link\n    matrix: { url: [https://example.com/a, https://example.com/b] }\n    with: { url: "{{ matrix.url }}" }\n  - id: clone\n    kind: ad_clone\n    with: { link: "{{ steps.links.id }}", video_url: https://example.com/ad.mp4 }\n`),
      ['manifest.yaml:10:19  steps.1.with.link: {{ steps.links.id }}: step links has 2 jobs, and a steps.ID reference needs exactly one (for one job per job of links, use for_each: { step: links } and {{ item.FIELD }})'],
    ],
  ])('%s', async (_, yaml, expected) => {
    expect(await problems({ 'manifest.yaml': yaml })).toEqual(expected);
  });

  test('a bad value in a CSV row is reported at that row of the CSV, once per row', async () => {
    const yaml = head(`${SHORT.replace('9x16', '"{{ row.ratio }}"')}    for_each: { csv: s.csv }\n`);
    const csv = 'ratio\n9x16\n"9:16"\n\n1x1\nsquare\n';
    expect(await problems({ 'manifest.yaml': yaml, 's.csv': csv })).toEqual([
      's.csv:3:1  steps.0.with.aspect_ratio: "9:16" is not accepted; did you mean 9x16? (accepted: 9x16, 16x9, 1x1)',
      's.csv:6:1  steps.0.with.aspect_ratio: "square" is not accepted (accepted: 9x16, 16x9, 1x1)',
    ]);
  });

  test('a JSONL row missing a field names the line and the fields it has', async () => {
    const yaml = head(`${SHORT.replace('Hello there', '"{{ row.script }}"')}    for_each: { jsonl: s.jsonl }\n`);
    expect(await problems({ 'manifest.yaml': yaml, 's.jsonl': '{"script": "hi"}\n{"text": "oops"}\n' })).toEqual([
      's.jsonl:2  steps.0.for_each: this row has no script (fields: text)',
    ]);
  });

  test('a bad value in an inline row is reported at that row in the manifest', async () => {
    const rows = '    for_each:\n      rows:\n        - { ratio: 9x16 }\n        - { ratio: tall }\n';
    const yaml = head(`${SHORT.replace('9x16', '"{{ row.ratio }}"')}${rows}`);
    expect(await problems({ 'manifest.yaml': yaml })).toEqual([
      'manifest.yaml:10:20  steps.0.with.aspect_ratio: "tall" is not accepted (accepted: 9x16, 16x9, 1x1)',
    ]);
  });

  test('a matrix combination without a value for a placeholder names the combination', async () => {
    const matrix = '    matrix: { ratio: [9x16], include: [{ style: Kawaii }, { ratio: 1x1 }] }\n';
    const yaml = head(`${SHORT.replace('9x16', '"{{ matrix.ratio }}"').replace('Cinematic', '"{{ matrix.style }}"')}${matrix}`);
    expect(await problems({ 'manifest.yaml': yaml })).toEqual([
      'manifest.yaml:6:77  steps.0.with.style: {{ matrix.style }} has no value in matrix combination {"ratio":"1x1"}',
    ]);
  });

  test('every problem of a stage is reported in one go, in line order', async () => {
    const yaml = head(`${SHORT.replace('Cinematic', 'Cinema').replace('9x16', '9:16')}`);
    const found = await problems({ 'manifest.yaml': yaml });
    expect(found.map((line) => line.split('  ')[1]?.split(':')[0])).toEqual(['steps.0.with.aspect_ratio', 'steps.0.with.style']);
  });
});
