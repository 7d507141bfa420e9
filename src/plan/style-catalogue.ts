import { InvalidInputError } from '../errors.js';
import { ALL_STYLES, catalogueIssues, chunks, stepInstances, type Manifest, type ManifestStep, type StyleCatalogue } from '../manifest/index.js';
import { locatedIn } from '../manifest/read/yaml-source.js';

/**
 * HTML ad style ids against the service's catalogue. The spec lists no style ids: the service's
 * `GET /api/html_interactive_ads/styles/` is the only truth, so the planner holds no list of its
 * own. It is given one — read live by a run (before anything is sent), the copy cached in the
 * state database by the last read (`reelpipe catalogue styles`, every run), or the embedded
 * sandbox's — or none:
 *   - explicit ids: checked against the catalogue given, an unknown one refused where it is
 *     written; without a catalogue they are priced (10 credits an ad) and left for the run, which
 *     checks them against the service before spending;
 *   - `style_ids: all`: needs a catalogue (there is nothing else to expand it to). The styles it
 *     expanded to when a job was first planned are kept with the job: a later catalogue never
 *     changes a job already sent (its key), styles added since make new jobs, styles removed are
 *     said (their ads stay as made).
 */
export interface StyleOptions {
  /** The catalogue to check and expand with; none: offline without a cached copy. */
  styles?: StyleCatalogue;
  /**
   * The styles each sent `all` job was first planned with, by the key of the request it was
   * expanded from (an `all` job's `expandedFrom`): state/sqlite/catalogue-cache.ts readPlannedItems.
   */
  plannedItems?: ReadonlyMap<string, readonly (readonly string[])[]>;
}

/** Whether the manifest makes HTML ads: only then do the catalogue of styles and what its sent ads were planned with matter. */
export const makesHtmlAds = (manifest: Manifest): boolean => manifest.steps.some((step) => step.kind === 'html_ads');

/** Whether the manifest asks for `style_ids: all` anywhere: planning it needs a catalogue. */
export function usesAllStyles(manifest: Manifest): boolean {
  return manifest.steps.some((step) => asksAllStyles(manifest, step));
}

/** Whether an HTML ad step's instances ask for `style_ids: all` (each instance made again, none kept). */
function asksAllStyles(manifest: Manifest, step: ManifestStep): boolean {
  if (step.kind !== 'html_ads') return false;
  for (const instance of stepInstances(manifest, step)) if (instance.request.style_ids === ALL_STYLES) return true;
  return false;
}

/** Refuses what the catalogue given cannot vouch for, and says what is left unchecked. */
export function checkStyles(manifest: Manifest, options: StyleOptions, warnings: string[]): void {
  const htmlSteps = manifest.steps.filter((step) => step.kind === 'html_ads');
  if (htmlSteps.length === 0) return;
  const usesAll = htmlSteps.filter((step) => asksAllStyles(manifest, step));
  if (!options.styles) {
    if (usesAll.length > 0) {
      const at = locatedIn(manifest.source);
      throw new InvalidInputError(
        usesAll.map((step) => at(step.withOrigin(['style_ids']), `style_ids: ${ALL_STYLES} needs the service's catalogue of styles, and none is known here: run \`reelpipe catalogue styles\` once (the state database keeps it), or run the manifest (it reads the catalogue before anything is sent)`)),
        `${manifest.displayFile}: style_ids: ${ALL_STYLES} cannot be expanded offline`,
      );
    }
    const steps = htmlSteps.map((s) => s.id).join(', ');
    warnings.push(`style ids of ${steps} are priced (10 credits an ad) but not checked: no catalogue of the service's styles is known here (\`reelpipe catalogue styles\` keeps one); the run checks them against the service before anything is sent`);
    return;
  }
  const issues = catalogueIssues(manifest, options.styles);
  if (issues.length > 0) throw new InvalidInputError(issues, `${manifest.displayFile}: style ids ${options.styles.said} does not offer`);
}

/**
 * The styles `style_ids: all` stands for, one list per job (at most 20 each): the lists the jobs
 * already sent were planned with, as they were, then the catalogue's other styles; and what changed
 * since those jobs were sent (`added`, `removed`), for the plan's warnings.
 */
export function expandAll(catalogue: StyleCatalogue, recorded: readonly (readonly string[])[]): { groups: string[][]; added: string[]; removed: string[] } {
  const sent = new Set(recorded.flat());
  const offered = new Set(catalogue.ids);
  const rest = catalogue.ids.filter((id) => !sent.has(id));
  return {
    groups: [...recorded.map((group) => [...group]), ...chunks(rest)],
    added: recorded.length > 0 ? rest : [],
    removed: [...sent].filter((id) => !offered.has(id)),
  };
}
