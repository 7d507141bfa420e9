import { UsageError } from '../../errors.js';
import type { Catalogue, CatalogueName } from '../catalogue/catalogues.js';
import type { CliIo } from '../io.js';
import { sandboxRunsOf, sandboxUrlOption, type StateFlags } from '../state-flags.js';
import type { RegisterCommand } from './index.js';

const NAMES = ['styles', 'models', 'musics', 'templates', 'voices', 'avatars'];

interface CatalogueFlags extends StateFlags {
  json?: boolean;
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
    .option('--state <path>', "where the list read is kept for offline commands (default: state/reelpipe.db in the working directory's project; the standalone sandbox's own with --sandbox-url)")
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
      // The embedded sandbox's lists are its own, local: nothing to keep. A standalone one is a service like the real one.
      const service = flags.sandboxUrl ?? (io.env.REELPIPE_BASE_URL ?? '').trim();
      const filtered = name === 'musics' && (flags.category !== undefined || flags.search !== undefined);
      const kept = flags.sandbox || !catalogue.list.listed || filtered ? undefined : await keep(io, flags, catalogue.list, service);
      io.stdout(flags.json ? asJson(catalogue.list, catalogue.source) : await asText(catalogue.list, catalogue.source, kept));
    });
};

function asJson(list: Catalogue, source: string): string {
  return `${JSON.stringify({ catalogue: list.name, source, listed: list.listed, usedAs: list.usedAs, items: list.items, notes: list.notes }, null, 2)}\n`;
}

async function asText(list: Catalogue, source: string, kept: string | undefined): Promise<string> {
  const { table } = await import('../../util/table.js');
  const head = `${list.name} from ${source} — for ${list.usedAs}: ${list.listed ? `${list.rows.length}` : 'no list at the service'}`;
  const body = list.rows.length > 0 ? table([list.columns, ...list.rows]) : [];
  const where = kept ? [`kept in ${kept}: validate and plan check manifests against it offline, naming when it was read`] : [];
  return [head, ...body.map((line) => `  ${line}`), ...list.notes.map((note) => `note: ${note}`), ...where, ''].join('\n');
}

/**
 * Keeps the list read in the state database (state/sqlite/catalogue-cache.ts), by the service's address
 * and the list's name: `validate` and `plan` check style ids against the last one read. A filtered
 * music query is not the whole list and is not kept. Returns the database's path.
 */
async function keep(io: CliIo, flags: CatalogueFlags, list: Catalogue, service: string): Promise<string | undefined> {
  if (service === '') return undefined;
  const [{ stateAt, resolveStatePath }, { serviceKey }, { join }] = await Promise.all([
    import('../../state/index.js'), import('../../run/plan-with-state.js'), import('node:path'),
  ]);
  // The state database a manifest in the working directory's project would use with the same flags.
  const dbPath = resolveStatePath(join(io.cwd, 'catalogue'), { cwd: io.cwd, statePath: flags.state, sandbox: sandboxRunsOf(flags) });
  await stateAt(dbPath).cacheCatalogue(serviceKey(service), list.name, list.items, Date.now());
  return dbPath;
}
