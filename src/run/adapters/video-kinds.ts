import type { KindAdapter, Resource } from './types.js';
import { PRODUCT_PHASES, VIDEO_JOB_PHASES } from './status-maps.js';
import { text, urlOutput, viewOf } from './view.js';

const asResource = (value: unknown) => value as Resource;
const idOf = (resource: Resource) => text(resource.id);
const videoView = (field: string) => (resource: Resource) => viewOf(resource, VIDEO_JOB_PHASES, urlOutput(resource, field, 'video'));

/** Filters a list to jobs created in [after, before): for lists that take no window themselves. */
export function inWindow(items: readonly Resource[], window: { after: string; before: string }): Resource[] {
  const after = Date.parse(window.after);
  const before = Date.parse(window.before);
  return items.filter((item) => {
    const at = Date.parse(String(item.created_at ?? ''));
    return Number.isFinite(at) && at >= after && at < before;
  });
}

export const aiShort: KindAdapter = {
  kind: 'ai_short',
  mode: 'tracked',
  submit: async (client, { request }, call) => asResource(await client.aiShorts.create(request as never, call)),
  remoteIdOf: idOf,
  read: async (client, id, call) => asResource(await client.aiShorts.get(id, call)),
  listByIds: async (client, ids) => (await client.aiShorts.list({ ids })).map(asResource),
  view: videoView('video_output'),
  // The ai_shorts list takes only `ids`: it cannot find a job whose id we never learnt.
  reconcile: 'none',
  typicalSeconds: 180,
};

export const aiEditing: KindAdapter = {
  kind: 'ai_editing',
  mode: 'tracked',
  submit: async (client, { request }, call) => asResource(await client.aiEditing.create(request as never, call)),
  remoteIdOf: idOf,
  read: async (client, id, call) => asResource(await client.aiEditing.get(id, call)),
  view: videoView('video_output'),
  reconcile: 'none',
  typicalSeconds: 180,
};

export const boreal: KindAdapter = {
  kind: 'boreal',
  mode: 'tracked',
  submit: async (client, { request }, call) => asResource(await client.boreal.create(request as never, call)),
  remoteIdOf: idOf,
  read: async (client, id, call) => asResource(await client.boreal.get(id, call)),
  view: videoView('video_output'),
  reconcile: 'none',
  typicalSeconds: 120,
};

export const adClone: KindAdapter = {
  kind: 'ad_clone',
  mode: 'tracked',
  submit: async (client, { request }, call) => asResource(await client.adClones.create(request as never, call)),
  remoteIdOf: idOf,
  read: async (client, id, call) => asResource(await client.adClones.get(id, call)),
  view: videoView('video_output'),
  // The list takes no filter: all recent clones come back and the window is applied here.
  reconcile: 'list-all',
  listRecent: async (client, window, call) => inWindow((await client.adClones.list(call)).map(asResource), window),
  typicalSeconds: 180,
};

export const lipsync: KindAdapter = {
  kind: 'lipsync_v2',
  mode: 'tracked',
  submit: async (client, { request }, call) => asResource(await client.lipsyncs.create(request as never, call)),
  remoteIdOf: idOf,
  read: async (client, id, call) => asResource(await client.lipsyncs.get(id, call)),
  listByIds: async (client, ids) => (await client.lipsyncs.list({ ids })).map(asResource),
  view: (resource) => viewOf(resource, VIDEO_JOB_PHASES, urlOutput(resource, 'output', 'video')),
  reconcile: 'list-window',
  listRecent: async (client, window, call) =>
    (await client.lipsyncs.list({ created_after: window.after, created_before: window.before }, call)).map(asResource),
  typicalSeconds: 30,
};

export const productRegen: KindAdapter = {
  kind: 'product_regen',
  mode: 'tracked',
  submit: async (client, { request, pathId }, call) => asResource(await client.productToVideos.regen(String(pathId), request as never, call)),
  remoteIdOf: idOf,
  read: async (client, id, call) => asResource(await client.productToVideos.get(id, call)),
  view: (resource) => viewOf(resource, PRODUCT_PHASES, urlOutput(resource, 'generated_video_url', 'video')),
  reconcile: 'none',
  typicalSeconds: 120,
};
