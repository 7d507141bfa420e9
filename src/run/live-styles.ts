import type { ServiceClient } from '../api/index.js';
import { InvalidInputError } from '../errors.js';
import type { Manifest } from '../manifest/types.js';
import { findJob, makesHtmlAds, usesAllStyles, type Plan } from '../plan/index.js';
import { stateAt } from '../state/index.js';
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
  /** A client of the service whose catalogue counts (the real one, or a standalone sandbox). */
  client: () => ServiceClient;
  clock: Clock;
  progress: RunEvents;
  /** Each job's status in the state database (undefined: never recorded). */
  statusOf: (key: string) => string | undefined;
  /** The run's selection of the manifest's plan (`--step`; the whole plan without one): it may refuse, before anything is read. */
  select: (whole: Plan) => Plan;
}

/** The manifest's plan and the run's selection of it. */
export interface RunPlans {
  whole: Plan;
  plan: Plan;
}

export async function planForRun(input: LiveStylesInput): Promise<RunPlans> {
  const { manifest, client: connect, clock, progress, statusOf, select, ...options } = input;
  const plans = (whole: Plan): RunPlans => ({ whole, plan: select(whole) });
  if (options.embedded || options.service === undefined || !makesHtmlAds(manifest)) return plans(await planWithState(manifest, options));
  let planned: RunPlans | undefined;
  let planError: unknown;
  try {
    planned = plans(await planWithState(manifest, options));
  } catch (error) {
    // `all` with no copy of the catalogue: the live read below is what can plan it.
    if (!usesAllStyles(manifest)) throw error;
    planError = error;
  }
  // Only what this run may send decides: a refused --step, or a selection without HTML ads, reads nothing.
  const toSend = planned && findJob(planned.plan.jobs, (job) => job.kind === 'html_ads' && (statusOf(job.key) ?? 'planned') === 'planned') !== undefined;
  // `all` reads the live list on every run: a style the service added since is a new job to make.
  const usesAll = planned && findJob(planned.plan.jobs, (job) => job.expandedFrom !== undefined) !== undefined;
  if (planned && !toSend && !usesAll) return planned;
  let body: unknown;
  try {
    const client = connect();
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
  await stateAt(options.statePath).cacheCatalogue(serviceKey(options.service), STYLES_CATALOGUE, body, clock.now());
  try {
    return plans(await planWithState(manifest, { ...options, live: stylesOf(body, "the service's catalogue") }));
  } catch (error) {
    if (!(error instanceof InvalidInputError)) throw error;
    throw new InvalidInputError(error.issues, `${manifest.name}: HTML ad styles the service does not offer; nothing was submitted`);
  }
}
