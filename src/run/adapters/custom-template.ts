import type { KindAdapter, Resource } from './types.js';
import { VIDEO_JOB_PHASES } from './status-maps.js';
import { text, urlOutput, viewOf } from './view.js';

const asResource = (value: unknown) => value as Resource;
/** A render job keeps its preview's id; the suffix keeps the two rows of the one remote job apart. */
const RENDER_SUFFIX = '#render';
const readId = (remoteId: string) => (remoteId.endsWith(RENDER_SUFFIX) ? remoteId.slice(0, -RENDER_SUFFIX.length) : remoteId);

const base = {
  kind: 'custom_template' as const,
  mode: 'tracked' as const,
  read: async (client: Parameters<KindAdapter['submit']>[0], id: string, call?: Parameters<KindAdapter['submit']>[2]) =>
    asResource(await client.customTemplates.getJob(readId(id), call)),
  reconcile: 'none' as const,
  typicalSeconds: 180,
};

/**
 * The three modes of a custom_template step. A preview is finished when its preview URL is
 * populated (the spec: "poll until preview is populated"); a render, or preview-and-render in one
 * call, when the job is done with the link in video_output.
 */
export const customTemplateModes: Record<'preview' | 'render' | 'both', KindAdapter> = {
  preview: {
    ...base,
    submit: async (client, { request }, call) => asResource(await client.customTemplates.preview(request as never, call)),
    remoteIdOf: (resource) => text(resource.id),
    view: (resource) => {
      const view = viewOf(resource, VIDEO_JOB_PHASES, urlOutput(resource, 'preview', 'asset'));
      const previewReady = text(resource.preview) !== undefined && view.phase !== 'failed';
      return previewReady ? { ...view, phase: 'done' } : view;
    },
  },
  render: {
    ...base,
    submit: async (client, { request, pathId }, call) => asResource(await client.customTemplates.render(String(pathId), request as never, call)),
    remoteIdOf: (resource) => (text(resource.id) ? `${String(resource.id)}${RENDER_SUFFIX}` : undefined),
    view: (resource) => viewOf(resource, VIDEO_JOB_PHASES, urlOutput(resource, 'video_output', 'video')),
  },
  both: {
    ...base,
    submit: async (client, { request }, call) => asResource(await client.customTemplates.createAndRender(request as never, call)),
    remoteIdOf: (resource) => text(resource.id),
    view: (resource) => viewOf(resource, VIDEO_JOB_PHASES, urlOutput(resource, 'video_output', 'video')),
  },
};
