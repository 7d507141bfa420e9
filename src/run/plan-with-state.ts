import type { StyleCatalogue } from '../manifest/index.js';
import type { Manifest } from '../manifest/types.js';
import { makesHtmlAds, planStream, type PlanOptions, type PlanStream } from '../plan/index.js';
import { HTML_AD_STYLES } from '../sandbox/catalogues/html-ad-styles.js';
import { stateAt, type CachedCatalogue } from '../state/index.js';
import { utcIso } from '../util/time-format.js';

/**
 * Planning as every command does it: the pure planner, given what only the state database and the
 * service can say — the service's catalogue of HTML ad styles (plan/style-catalogue.ts) and the
 * styles each `style_ids: all` job was sent with. Which catalogue, in order:
 *   1. one just read from the service (a run reads it before anything is sent: `live`);
 *   2. the embedded sandbox's own (with --sandbox: that sandbox's live catalogue, local; a
 *      standalone sandbox, --sandbox-url, is a service like the real one);
 *   3. the copy the state database keeps of the service's, from its last read (`reelpipe
 *      catalogue styles`, or a run), named with its date;
 *   4. none: explicit ids are priced and left for the run to check; `all` cannot be planned.
 */
export interface StatePlanOptions extends Omit<PlanOptions, 'styles' | 'plannedItems'> {
  /** The state database the command uses (a missing one knows nothing). */
  statePath: string;
  /** The service's address (REELPIPE_BASE_URL, or a standalone sandbox's), whose catalogue is cached; undefined: not known. */
  service: string | undefined;
  /** The embedded sandbox's runs: its own catalogue is the live one. @default false */
  embedded?: boolean;
  /** A catalogue just read from the service. */
  live?: StyleCatalogue;
}

/** The name the HTML ad styles catalogue is cached under (`reelpipe catalogue styles`). */
export const STYLES_CATALOGUE = 'styles';

export async function planWithState(manifest: Manifest, options: StatePlanOptions): Promise<PlanStream> {
  const { statePath, service, live, embedded, ...rest } = options;
  const state = stateAt(statePath);
  const styles = live ?? (embedded ? SANDBOX_STYLES : service === undefined ? undefined : cachedStyles(await state.cachedCatalogue(serviceKey(service), STYLES_CATALOGUE)));
  // What `style_ids: all` jobs were sent with: read only for a manifest of HTML ads (a read of every job's row, 0.15 s at 100,000).
  const plannedItems = makesHtmlAds(manifest) ? await state.plannedItems(manifest.identity) : undefined;
  return planStream(manifest, { ...rest, ...(styles ? { styles } : {}), ...(plannedItems ? { plannedItems } : {}) });
}

/** The embedded sandbox's catalogue: it is that sandbox's live one (and needs no network). */
const SANDBOX_STYLES: StyleCatalogue = { ids: HTML_AD_STYLES.map((style) => style.id), said: "the sandbox's catalogue" };

/** A style list as the service gives it: `[{ id, name, … }]`. */
export function stylesOf(body: unknown, said: string): StyleCatalogue {
  const ids = Array.isArray(body) ? body.flatMap((s) => (s && typeof s === 'object' && typeof (s as { id?: unknown }).id === 'string' ? [(s as { id: string }).id] : [])) : [];
  return { ids, said };
}

function cachedStyles(cached: CachedCatalogue | undefined): StyleCatalogue | undefined {
  return cached && stylesOf(cached.body, `the service's catalogue as read on ${utcIso(cached.fetchedAt).slice(0, 16).replace('T', ' ')} UTC (\`reelpipe catalogue styles\` reads it again)`);
}

/** A service's address as its catalogues are cached under: without a trailing slash. */
export const serviceKey = (baseUrl: string): string => baseUrl.trim().replace(/\/+$/, '');
