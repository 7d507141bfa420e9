import type { OperationName, ResultOf } from './operations.js';
import type { CallOptions, ServiceClient } from './service-client.js';

/** What an operation call carries besides its name; each part is validated before sending. */
export interface CallArgs {
  /** The `{id}` of the path. */
  id?: string;
  body?: unknown;
  query?: Record<string, unknown>;
}

export type Send = <N extends OperationName>(name: N, args?: CallArgs, options?: CallOptions) => Promise<ResultOf<N>>;

/** The resource groups of the client: each function names its operation and passes its parts. */
export function buildResources(send: Send): Omit<ServiceClient, 'close' | 'baseUrl'> {
  return {
    aiShorts: {
      create: (body, o) => send('aiShorts.create', { body }, o),
      get: (id, o) => send('aiShorts.get', { id }, o),
      list: ({ ids }, o) => send('aiShorts.list', { query: { ids } }, o),
    },
    aiEditing: {
      create: (body, o) => send('aiEditing.create', { body }, o),
      get: (id, o) => send('aiEditing.get', { id }, o),
    },
    productToVideos: {
      regen: (id, body, o) => send('productToVideos.regen', { id, body }, o),
      get: (id, o) => send('productToVideos.get', { id }, o),
      genImage: (body, o) => send('productToVideos.genImage', { body }, o),
      genVideo: (id, body, o) => send('productToVideos.genVideo', { id, body }, o),
    },
    personas: {
      create: (body, o) => send('personas.create', { body }, o),
      get: (id, o) => send('personas.get', { id }, o),
      delete: (id, o) => send('personas.delete', { id }, o),
    },
    voices: {
      create: (body, o) => send('voices.create', { body }, o),
    },
    links: {
      create: (body, o) => send('links.create', { body }, o),
      createWithParams: (body, o) => send('links.createWithParams', { body }, o),
      update: (id, body, o) => send('links.update', { id, body }, o),
      get: (id, o) => send('links.get', { id }, o),
    },
    htmlAds: {
      create: (body, o) => send('htmlAds.create', { body }, o),
      get: (id, o) => send('htmlAds.get', { id }, o),
      list: ({ ids }, o) => send('htmlAds.list', { query: { ids } }, o),
      styles: (o) => send('htmlAds.styles', {}, o),
    },
    lipsyncs: {
      create: (body, o) => send('lipsyncs.create', { body }, o),
      get: (id, o) => send('lipsyncs.get', { id }, o),
      list: (filter = {}, o) => send('lipsyncs.list', { query: { ...filter } }, o),
    },
    boreal: {
      create: (body, o) => send('boreal.create', { body }, o),
      get: (id, o) => send('boreal.get', { id }, o),
    },
    adClones: {
      create: (body, o) => send('adClones.create', { body }, o),
      get: (id, o) => send('adClones.get', { id }, o),
      list: (o) => send('adClones.list', {}, o),
    },
    textGenerator: {
      create: (body, o) => send('textGenerator.create', { body }, o),
      get: (id, o) => send('textGenerator.get', { id }, o),
    },
    assetGenerator: {
      create: (body, o) => send('assetGenerator.create', { body }, o),
      get: (id, o) => send('assetGenerator.get', { id }, o),
      schemas: (modelNames, o) => send('assetGenerator.schemas', { query: { model_name: modelNames } }, o),
    },
    musics: {
      list: (query = {}, o) => send('musics.list', { query: { ...query } }, o),
    },
    customTemplates: {
      list: (o) => send('customTemplates.list', {}, o),
      get: (templateId, o) => send('customTemplates.get', { id: templateId }, o),
      preview: (body, o) => send('customTemplates.preview', { body }, o),
      createAndRender: (body, o) => send('customTemplates.createAndRender', { body }, o),
      render: (jobId, body = {}, o) => send('customTemplates.render', { id: jobId, body }, o),
      getJob: (id, o) => send('customTemplates.getJob', { id }, o),
    },
    credits: {
      remaining: (o) => send('credits.remaining', {}, o),
    },
  };
}
