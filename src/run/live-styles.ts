import { clientFromEnv } from '../api/index.js';
import type { Manifest } from '../manifest/types.js';
import { usesAllStyles, type Plan } from '../plan/index.js';
import { cacheCatalogueAt } from '../state/index.js';
import type { Clock } from '../util/clock.js';
import { planWithState, serviceKey, STYLES_CATALOGUE, stylesOf, type StatePlanOptions } from './plan-with-state.js';
import type { RunEvents } from './run-events.js';

/**
 * The plan a run starts from, its HTML ad styles checked against the service's own catalogue
 * before anything is sent (plan/style-catalogue.ts). Planning first takes what the state database
 * keeps (the copy of the catalogue from its last read); then the live list is read — a free read —
 * whenever it can decide something: the manifest asks for `style_ids: all`, or some HTML ad job of
 * the plan is still to be sent. Each read is kept in the state database for offline commands, and
 * the plan is made again with it: an id the service does not offer refuses the run (exit 2, nothing
 * sent), and `all` expands to what the service offers now. A finished manifest re-runs without a
 * request. Against the embedded sandbox, its own catalogue is the live one and nothing is read.
 *
 * Why a list that cannot be read only warns (when a plan could be made without it): the copy
 * already vouched for the ids, or the run is told they are unchecked, and an unreachable service
 * stops the run soon enough; `all` without any catalogue cannot be planned, and that error stands.
 */
export interface LiveStylesInput extends StatePlanOptions {
  manifest: Manifest;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  progress: RunEvents;
  /** Each job's status in the state database (undefined: never recorded). */
  statusOf: (key: string) => string | undefined;
}

export async function planForRun(input: LiveStylesInput): Promise<Plan> {
  const { manifest, env, clock, progress, statusOf, ...options } = input;
  if (options.sandbox || options.service === undefined || !manifest.steps.some((step) => step.kind === 'html_ads')) return planWithState(manifest, options);
  let planned: Plan | undefined;
  let planError: unknown;
  try {
    planned = planWithState(manifest, options);
  } catch (error) {
    // `all` with no copy of the catalogue: the live read below is what can plan it.
    if (!usesAllStyles(manifest)) throw error;
    planError = error;
  }
  const toSend = planned?.jobs.some((job) => job.kind === 'html_ads' && (statusOf(job.key) ?? 'planned') === 'planned');
  // `all` reads the live list on every run: a style the service added since is a new job to make.
  if (planned && !toSend && !usesAllStyles(manifest)) return planned;
  let body: unknown;
  try {
    const client = clientFromEnv(env);
    try {
      body = await client.htmlAds.styles();
    } finally {
      await client.close();
    }
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (!planned) throw planError;
    progress.emit('run:note', { message: `warning: could not read the service's HTML ad styles (${reason}); the style ids are checked only against the copy of the catalogue the state database keeps, if it has one` });
    return planned;
  }
  cacheCatalogueAt(options.statePath, serviceKey(options.service), STYLES_CATALOGUE, body, clock.now());
  return planWithState(manifest, { ...options, live: stylesOf(body, "the service's catalogue") });
}
