import { UsageError } from '../../errors.js';
import type { Catalogue, CatalogueName } from '../catalogue/catalogues.js';
import { sandboxRunsOf, sandboxUrlOption } from '../state-flags.js';
import type { RegisterCommand } from './index.js';

const NAMES = ['styles', 'models', 'musics', 'templates', 'voices', 'avatars'];

interface CatalogueFlags {
  json?: boolean;
  sandbox?: boolean;
  sandboxUrl?: string;
  category?: string;
  search?: string;
}

/**
 * `reelpipe catalogue styles|models|musics|templates|voices|avatars [--json] [--sandbox | --sandbox-url URL]`:
 * what the service (or, with --sandbox, an embedded sandbox; with --sandbox-url, that one) offers, read live, so a manifest's
 * `style_ids`, `model_name` and template variables can be written without reading the source.
 * Voices and avatars have no list at the service: the command says so rather than invent one.
 */
export const registerCatalogue: RegisterCommand = (program, io) => {
  program
    .command('catalogue')
    .description('list what the service offers: styles, models, musics, templates (voices and avatars: see --help)')
    .argument('<list>', NAMES.join('|'))
    .option('--json', 'print the items as the service gave them, as JSON')
    .option('--sandbox', 'ask an embedded sandbox instead of the service (REELPIPE_* not needed)')
    .addOption(sandboxUrlOption('ask the standalone sandbox at this address instead of the service (as `reelpipe sandbox` prints it; not with --sandbox)'))
    .option('--category <name>', 'musics: only this category')
    .option('--search <text>', 'musics: tracks whose name or category matches')
    .addHelpText('after', '\nThe service has no operation that lists voices or avatars: those two say so, and with\n--sandbox show the sandbox\'s fixture avatars and their voices.\n')
    .action(async (name: string, flags: CatalogueFlags) => {
      if (!NAMES.includes(name)) throw new UsageError(`catalogue ${name}: no such list; use one of ${NAMES.join(', ')}`);
      if ((flags.category !== undefined || flags.search !== undefined) && name !== 'musics') throw new UsageError('--category and --search apply to `catalogue musics` only');
      const [{ withServiceClient }, { readCatalogue }] = await Promise.all([import('../catalogue/connect.js'), import('../catalogue/catalogues.js')]);
      const sandbox = sandboxRunsOf(flags);
      const ids = sandbox && (name === 'voices' || name === 'avatars') ? (await import('../../sandbox/index.js')).FIXTURE_IDS.personas : undefined;
      const catalogue = await withServiceClient(io, sandbox, async (client, source) => ({
        source,
        list: await readCatalogue(client, name as CatalogueName, { category: flags.category, search: flags.search, ids }),
      }));
      io.stdout(flags.json ? asJson(catalogue.list, catalogue.source) : await asText(catalogue.list, catalogue.source));
    });
};

function asJson(list: Catalogue, source: string): string {
  return `${JSON.stringify({ catalogue: list.name, source, listed: list.listed, usedAs: list.usedAs, items: list.items, notes: list.notes }, null, 2)}\n`;
}

async function asText(list: Catalogue, source: string): Promise<string> {
  const { table } = await import('../../util/table.js');
  const head = `${list.name} from ${source} — for ${list.usedAs}: ${list.listed ? `${list.rows.length}` : 'no list at the service'}`;
  const body = list.rows.length > 0 ? table([list.columns, ...list.rows]) : [];
  return [head, ...body.map((line) => `  ${line}`), ...list.notes.map((note) => `note: ${note}`), ''].join('\n');
}
