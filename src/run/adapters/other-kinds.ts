import { LINK_SCRAPE_CREDITS } from '../../pricing/index.js';
import { ASSET_PHASES, PERSONA_PHASES, SIMPLE_PHASES, VIDEO_JOB_PHASES } from './status-maps.js';
import type { KindAdapter, OutputSpec, Resource } from './types.js';
import { HTML_AD_ITEMS } from './html-ad-items.js';
import { instantView, text, viewOf } from './view.js';

const asResource = (value: unknown) => value as Resource;
const idOf = (resource: Resource) => text(resource.id);
const noId = () => undefined;

function assetOutputs(resource: Resource): OutputSpec[] {
  const assets = Array.isArray(resource.assets) ? (resource.assets as Resource[]) : [];
  return assets.flatMap((asset, index): OutputSpec[] => {
    const url = text(asset.url);
    if (!url) return [];
    return [assets.length > 1 ? { media: 'asset', url, suffix: String(index + 1) } : { media: 'asset', url }];
  });
}

export const htmlAds: KindAdapter = {
  kind: 'html_ads',
  mode: 'tracked',
  submit: async (client, { request }, call) => asResource(await client.htmlAds.create(request as never, call)),
  remoteIdOf: idOf,
  read: async (client, id, call) => asResource(await client.htmlAds.get(id, call)),
  listByIds: async (client, ids) => (await client.htmlAds.list({ ids })).map(asResource),
  // Its files are its items' (run/outputs/job-outputs.ts): each ad's, made by whichever attempt made it.
  view: (resource) => viewOf(resource, SIMPLE_PHASES, [], { needsOutput: false }),
  reconcile: 'none',
  typicalSeconds: 60,
  items: HTML_AD_ITEMS,
};

export const assetGeneration: KindAdapter = {
  kind: 'asset_generation',
  mode: 'tracked',
  submit: async (client, { request }, call) => asResource(await client.assetGenerator.create(request as never, call)),
  remoteIdOf: idOf,
  read: async (client, id, call) => asResource(await client.assetGenerator.get(id, call)),
  view: (resource) => viewOf(resource, ASSET_PHASES, assetOutputs(resource)),
  reconcile: 'none',
  typicalSeconds: 6,
};

export const textGeneration: KindAdapter = {
  kind: 'text_generation',
  mode: 'tracked',
  submit: async (client, { request }, call) => asResource(await client.textGenerator.create(request as never, call)),
  remoteIdOf: idOf,
  read: async (client, id, call) => asResource(await client.textGenerator.get(id, call)),
  // The generated text is the output: written to NAME.txt like any downloaded file.
  view: (resource) => {
    const response = typeof resource.response_text === 'string' ? resource.response_text : undefined;
    return viewOf(resource, SIMPLE_PHASES, response === undefined ? [] : [{ media: 'text', inline: response }], { needsOutput: false });
  },
  reconcile: 'none',
  typicalSeconds: 10,
};

export const persona: KindAdapter = {
  kind: 'persona',
  mode: 'tracked',
  submit: async (client, { request }, call) => asResource(await client.personas.create(request as never, call)),
  remoteIdOf: idOf,
  read: async (client, id, call) => asResource(await client.personas.get(id, call)),
  view: (resource) => viewOf(resource, PERSONA_PHASES, [], { statusField: 'process_status', needsOutput: false }),
  reconcile: 'none',
  // Review "takes up to about one to two days": poll rarely, resume with later runs.
  typicalSeconds: 36 * 3600,
};

export const personaDelete: KindAdapter = {
  kind: 'persona_delete',
  mode: 'instant',
  // The client treats a 404 after a possibly-delivered DELETE as done within one call; across
  // runs (a crash mid-DELETE), goneMeansDone does the same. A first-try 404 fails the job.
  submit: async (client, { pathId }, call) => (await client.personas.delete(String(pathId), call), { id: pathId }),
  goneMeansDone: true,
  remoteIdOf: noId,
  view: instantView,
  // DELETE is idempotent: after a crash, deleting again is the reconciliation.
  reconcile: 'resend',
  typicalSeconds: 1,
  // Deleting an avatar is not a priced operation anywhere in the spec: it costs nothing.
  fixedCredits: 0,
};

export const voiceClone: KindAdapter = {
  kind: 'voice_clone',
  mode: 'instant',
  submit: async (client, { request }, call) => asResource(await client.voices.create(request as never, call)),
  // A cloned voice answers with accents, each with its id, but no id of its own.
  remoteIdOf: (resource) => {
    const accents = Array.isArray(resource.accents) ? (resource.accents as Resource[]) : [];
    return text(accents[0]?.id);
  },
  view: instantView,
  reconcile: 'none',
  typicalSeconds: 1,
};

export const link: KindAdapter = {
  kind: 'link',
  mode: 'instant',
  submit: async (client, { request }, call) => asResource(await client.links.create(request as never, call)),
  remoteIdOf: idOf,
  read: async (client, id, call) => asResource(await client.links.get(id, call)),
  view: instantView,
  reconcile: 'none',
  typicalSeconds: 1,
  fixedCredits: LINK_SCRAPE_CREDITS,
};

export const linkWithParams: KindAdapter = {
  ...link,
  kind: 'link_with_params',
  submit: async (client, { request }, call) => asResource(await client.links.createWithParams(request as never, call)),
  fixedCredits: undefined,
};

export const linkUpdate: KindAdapter = {
  kind: 'link_update',
  mode: 'instant',
  submit: async (client, { request, pathId }, call) => asResource(await client.links.update(String(pathId), request as never, call)),
  // The link belongs to the step that made it; an update records no id of its own.
  remoteIdOf: noId,
  view: instantView,
  // PUT replaces the link with the same content each time: sending it again is safe.
  reconcile: 'resend',
  typicalSeconds: 1,
  fixedCredits: 0,
};

export const music: KindAdapter = {
  kind: 'music',
  mode: 'lookup',
  // A music step yields one track: the first of the page its query returns (manifest docs).
  submit: async (client, { request }, call) => {
    const page = await client.musics.list(request as never, call);
    const first = page.results[0];
    if (!first) return { status: 'failed', failed_reason: `no music track matches ${JSON.stringify(request)}` };
    return { ...asResource(first), status: 'done' };
  },
  remoteIdOf: noId,
  view: (resource) => (resource.status === 'failed' ? viewOf(resource, VIDEO_JOB_PHASES, []) : instantView(resource)),
  reconcile: 'resend',
  typicalSeconds: 1,
  fixedCredits: 0,
};
