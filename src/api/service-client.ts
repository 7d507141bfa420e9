import type { z } from 'zod';
import type * as s from './schemas/index.js';

type In<T extends z.ZodType> = z.input<T>;

/** `ids` filter of the list reads: 1 to 100 UUIDs, sent comma-separated. */
export interface IdsFilter {
  ids: readonly string[];
}

/** Lipsync list filter: ids and/or a creation-time window (after inclusive, before exclusive). */
export interface LipsyncListFilter {
  ids?: readonly string[];
  created_after?: string;
  created_before?: string;
}

/**
 * The service, one typed function per operation, grouped by resource. Request bodies are checked
 * against the strict schemas before sending (InvalidInputError naming the field); answers are
 * checked against the loose schemas (ApiInvalidResponseError naming the operation and field).
 */
export interface ServiceClient {
  aiShorts: {
    create(body: In<typeof s.AiShortCreate>): Promise<s.AiShort>;
    get(id: string): Promise<s.AiShort>;
    list(filter: IdsFilter): Promise<s.AiShort[]>;
  };
  aiEditing: {
    create(body: In<typeof s.AiEditingCreate>): Promise<s.AiEditing>;
    get(id: string): Promise<s.AiEditing>;
  };
  productToVideos: {
    regen(id: string, body: In<typeof s.ProductRegen>): Promise<s.ProductTask>;
    get(id: string): Promise<s.ProductTask>;
    genImage(body: In<typeof s.ProductGenImage>): Promise<s.ProductTask>;
    genVideo(id: string, body: In<typeof s.ProductGenVideo>): Promise<s.ProductTask>;
  };
  personas: {
    create(body: In<typeof s.PersonaCreate>): Promise<s.Persona>;
    get(id: string): Promise<s.Persona>;
    delete(id: string): Promise<void>;
  };
  voices: {
    create(body: In<typeof s.VoiceCreate>): Promise<s.ClonedVoice>;
  };
  links: {
    create(body: In<typeof s.LinkCreate>): Promise<s.Link>;
    createWithParams(body: In<typeof s.LinkWithParams>): Promise<s.Link>;
    update(id: string, body: In<typeof s.LinkUpdate>): Promise<s.Link>;
    get(id: string): Promise<s.Link>;
  };
  htmlAds: {
    create(body: In<typeof s.HtmlAdCreate>): Promise<s.HtmlAdJob>;
    get(id: string): Promise<s.HtmlAdJob>;
    list(filter: IdsFilter): Promise<s.HtmlAdJob[]>;
    styles(): Promise<s.HtmlAdStyle[]>;
  };
  lipsyncs: {
    create(body: In<typeof s.LipsyncCreate>): Promise<s.LipsyncItem>;
    get(id: string): Promise<s.LipsyncItem>;
    list(filter?: LipsyncListFilter): Promise<s.LipsyncItem[]>;
  };
  boreal: {
    create(body: In<typeof s.BorealCreate>): Promise<s.BorealItem>;
    get(id: string): Promise<s.BorealItem>;
  };
  adClones: {
    create(body: In<typeof s.AdCloneCreate>): Promise<s.AdClone>;
    get(id: string): Promise<s.AdClone>;
    list(): Promise<s.AdClone[]>;
  };
  textGenerator: {
    create(body: In<typeof s.TextCreate>): Promise<s.TextTask>;
    /** Read through /sse/text_generator/{id}/, whose errors come as `{"error": ...}`. */
    get(id: string): Promise<s.TextTask>;
  };
  assetGenerator: {
    create(body: In<typeof s.AssetCreate>): Promise<s.Asset>;
    get(id: string): Promise<s.Asset>;
    schemas(modelNames?: readonly string[]): Promise<s.AssetModelSchema[]>;
  };
  musics: {
    list(query?: In<typeof s.MusicQuery>): Promise<s.MusicPage>;
  };
  customTemplates: {
    list(): Promise<s.TemplateEntry[]>;
    get(templateId: string): Promise<s.TemplateDetail>;
    preview(body: In<typeof s.TemplateJobCreate>): Promise<s.TemplateJob>;
    createAndRender(body: In<typeof s.TemplateJobCreate>): Promise<s.TemplateJob>;
    render(jobId: string, body?: In<typeof s.TemplateRender>): Promise<s.TemplateJob>;
    getJob(id: string): Promise<s.TemplateJob>;
  };
  credits: {
    remaining(): Promise<s.RemainingCredits>;
  };
  /** Closes the connection pool; waits for requests in flight. */
  close(): Promise<void>;
}
