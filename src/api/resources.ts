import type { OperationName, ResultOf } from './operations.js';
import type { ServiceClient } from './service-client.js';

/** What an operation call carries besides its name; each part is validated before sending. */
export interface CallArgs {
  /** The `{id}` of the path. */
  id?: string;
  body?: unknown;
  query?: Record<string, unknown>;
}

export type Send = <N extends OperationName>(name: N, args?: CallArgs) => Promise<ResultOf<N>>;

/** The resource groups of the client: each function names its operation and passes its parts. */
export function buildResources(send: Send): Omit<ServiceClient, 'close'> {
  return {
    aiShorts: {
      create: (body) => send('aiShorts.create', { body }),
      get: (id) => send('aiShorts.get', { id }),
      list: ({ ids }) => send('aiShorts.list', { query: { ids } }),
    },
    aiEditing: {
      create: (body) => send('aiEditing.create', { body }),
      get: (id) => send('aiEditing.get', { id }),
    },
    productToVideos: {
      regen: (id, body) => send('productToVideos.regen', { id, body }),
      get: (id) => send('productToVideos.get', { id }),
      genImage: (body) => send('productToVideos.genImage', { body }),
      genVideo: (id, body) => send('productToVideos.genVideo', { id, body }),
    },
    personas: {
      create: (body) => send('personas.create', { body }),
      get: (id) => send('personas.get', { id }),
      delete: (id) => send('personas.delete', { id }),
    },
    voices: {
      create: (body) => send('voices.create', { body }),
    },
    links: {
      create: (body) => send('links.create', { body }),
      createWithParams: (body) => send('links.createWithParams', { body }),
      update: (id, body) => send('links.update', { id, body }),
      get: (id) => send('links.get', { id }),
    },
    htmlAds: {
      create: (body) => send('htmlAds.create', { body }),
      get: (id) => send('htmlAds.get', { id }),
      list: ({ ids }) => send('htmlAds.list', { query: { ids } }),
      styles: () => send('htmlAds.styles'),
    },
    lipsyncs: {
      create: (body) => send('lipsyncs.create', { body }),
      get: (id) => send('lipsyncs.get', { id }),
      list: (filter = {}) => send('lipsyncs.list', { query: { ...filter } }),
    },
    boreal: {
      create: (body) => send('boreal.create', { body }),
      get: (id) => send('boreal.get', { id }),
    },
    adClones: {
      create: (body) => send('adClones.create', { body }),
      get: (id) => send('adClones.get', { id }),
      list: () => send('adClones.list'),
    },
    textGenerator: {
      create: (body) => send('textGenerator.create', { body }),
      get: (id) => send('textGenerator.get', { id }),
    },
    assetGenerator: {
      create: (body) => send('assetGenerator.create', { body }),
      get: (id) => send('assetGenerator.get', { id }),
      schemas: (modelNames) => send('assetGenerator.schemas', { query: { model_name: modelNames } }),
    },
    musics: {
      list: (query = {}) => send('musics.list', { query: { ...query } }),
    },
    customTemplates: {
      list: () => send('customTemplates.list'),
      get: (templateId) => send('customTemplates.get', { id: templateId }),
      preview: (body) => send('customTemplates.preview', { body }),
      createAndRender: (body) => send('customTemplates.createAndRender', { body }),
      render: (jobId, body = {}) => send('customTemplates.render', { id: jobId, body }),
      getJob: (id) => send('customTemplates.getJob', { id }),
    },
    credits: {
      remaining: () => send('credits.remaining'),
    },
  };
}
