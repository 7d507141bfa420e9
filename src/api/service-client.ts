import type { z } from 'zod';
import type * as s from './schemas/index.js';

type In<T extends z.ZodType> = z.input<T>;

/** Per call: what the caller can attach besides the request itself. */
export interface CallOptions {
  /**
   * Cancels the call: its retries stop, and a request on the wire is abandoned (an ApiAbortedError,
   * `sent` telling whether it may have left; an ApiInDoubtError for a creating POST that may have).
   * @default none (the client-wide `signal`, when given, still applies)
   */
  signal?: AbortSignal;
  /**
   * Fields every log line of this call carries (the runner passes the job's key and label, so a
   * request's line names the job it was made for). @default none
   */
  log?: Readonly<Record<string, unknown>>;
  /**
   * Called right before each attempt of a creating request is written (the first, and each retry
   * of one that provably created nothing); throwing cancels it unsent (ApiAbortedError, `sent`
   * false). The runner checks its lock's lease here. @default none
   */
  beforeCreating?: () => void;
}

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
 * checked against the loose schemas (ApiInvalidResponseError naming the operation and field),
 * every string in them scrubbed of the credentials. Every call takes an optional CallOptions.
 */
export interface ServiceClient {
  /** The service's base address, as configured (output links on its host are always fetched). */
  readonly baseUrl: string;
  aiShorts: {
    create(body: In<typeof s.AiShortCreate>, options?: CallOptions): Promise<s.AiShort>;
    get(id: string, options?: CallOptions): Promise<s.AiShort>;
    list(filter: IdsFilter, options?: CallOptions): Promise<s.AiShort[]>;
  };
  aiEditing: {
    create(body: In<typeof s.AiEditingCreate>, options?: CallOptions): Promise<s.AiEditing>;
    get(id: string, options?: CallOptions): Promise<s.AiEditing>;
  };
  productToVideos: {
    regen(id: string, body: In<typeof s.ProductRegen>, options?: CallOptions): Promise<s.ProductTask>;
    get(id: string, options?: CallOptions): Promise<s.ProductTask>;
    genImage(body: In<typeof s.ProductGenImage>, options?: CallOptions): Promise<s.ProductTask>;
    genVideo(id: string, body: In<typeof s.ProductGenVideo>, options?: CallOptions): Promise<s.ProductTask>;
  };
  personas: {
    create(body: In<typeof s.PersonaCreate>, options?: CallOptions): Promise<s.Persona>;
    get(id: string, options?: CallOptions): Promise<s.Persona>;
    delete(id: string, options?: CallOptions): Promise<void>;
  };
  voices: {
    create(body: In<typeof s.VoiceCreate>, options?: CallOptions): Promise<s.ClonedVoice>;
  };
  links: {
    create(body: In<typeof s.LinkCreate>, options?: CallOptions): Promise<s.Link>;
    createWithParams(body: In<typeof s.LinkWithParams>, options?: CallOptions): Promise<s.Link>;
    update(id: string, body: In<typeof s.LinkUpdate>, options?: CallOptions): Promise<s.Link>;
    get(id: string, options?: CallOptions): Promise<s.Link>;
  };
  htmlAds: {
    create(body: In<typeof s.HtmlAdCreate>, options?: CallOptions): Promise<s.HtmlAdJob>;
    get(id: string, options?: CallOptions): Promise<s.HtmlAdJob>;
    list(filter: IdsFilter, options?: CallOptions): Promise<s.HtmlAdJob[]>;
    styles(options?: CallOptions): Promise<s.HtmlAdStyle[]>;
  };
  lipsyncs: {
    create(body: In<typeof s.LipsyncCreate>, options?: CallOptions): Promise<s.LipsyncItem>;
    get(id: string, options?: CallOptions): Promise<s.LipsyncItem>;
    list(filter?: LipsyncListFilter, options?: CallOptions): Promise<s.LipsyncItem[]>;
  };
  boreal: {
    create(body: In<typeof s.BorealCreate>, options?: CallOptions): Promise<s.BorealItem>;
    get(id: string, options?: CallOptions): Promise<s.BorealItem>;
  };
  adClones: {
    create(body: In<typeof s.AdCloneCreate>, options?: CallOptions): Promise<s.AdClone>;
    get(id: string, options?: CallOptions): Promise<s.AdClone>;
    list(options?: CallOptions): Promise<s.AdClone[]>;
  };
  textGenerator: {
    create(body: In<typeof s.TextCreate>, options?: CallOptions): Promise<s.TextTask>;
    /** Read through /sse/text_generator/{id}/, whose errors come as `{"error": ...}`. */
    get(id: string, options?: CallOptions): Promise<s.TextTask>;
  };
  assetGenerator: {
    create(body: In<typeof s.AssetCreate>, options?: CallOptions): Promise<s.Asset>;
    get(id: string, options?: CallOptions): Promise<s.Asset>;
    schemas(modelNames?: readonly string[], options?: CallOptions): Promise<s.AssetModelSchema[]>;
  };
  musics: {
    list(query?: In<typeof s.MusicQuery>, options?: CallOptions): Promise<s.MusicPage>;
  };
  customTemplates: {
    list(options?: CallOptions): Promise<s.TemplateEntry[]>;
    get(templateId: string, options?: CallOptions): Promise<s.TemplateDetail>;
    preview(body: In<typeof s.TemplateJobCreate>, options?: CallOptions): Promise<s.TemplateJob>;
    createAndRender(body: In<typeof s.TemplateJobCreate>, options?: CallOptions): Promise<s.TemplateJob>;
    render(jobId: string, body?: In<typeof s.TemplateRender>, options?: CallOptions): Promise<s.TemplateJob>;
    getJob(id: string, options?: CallOptions): Promise<s.TemplateJob>;
  };
  credits: {
    remaining(options?: CallOptions): Promise<s.RemainingCredits>;
  };
  /** Closes the connection pool; waits for requests in flight. */
  close(): Promise<void>;
}
