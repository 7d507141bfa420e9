import { BOREAL_MAX_SECONDS, BorealCreate, MODEL_RESOLUTIONS, type BorealResolution } from '../../api/schemas/index.js';
import { borealCredits, h3Credits } from '../../pricing/index.js';
import type { SandboxCore } from '../core.js';
import { workPlan } from '../engine/plans.js';
import { json } from '../http/reply.js';
import { DEFAULT_LENGTHS, mediaSeconds } from '../media-length.js';
import { SAMPLE_MP4 } from '../outputs/media.js';
import type { Job } from '../store.js';
import { downloadUrl, findJob, jobBasics, putOutput, subsetWebhook, type Registrar } from './common.js';

/**
 * Boreal and Boreal-H3: pending → in_queue → running → done | failed | rejected. Rendering takes
 * about six times the video's length.
 */
const PENDING_SECONDS = 1;
const RENDER_SECONDS_PER_VIDEO_SECOND = 6;

/** Length and price of a render (spec, Limits items 5 and 6). */
export function borealQuote(body: BorealCreate, seed: number): { seconds: number; resolution: BorealResolution; price: number } {
  const model = body.model ?? 'boreal';
  const resolution = body.resolution ?? MODEL_RESOLUTIONS[model][0]!;
  if (model === 'boreal-h3') {
    const referenceVideoSeconds = (body.reference_video_urls ?? [])
      .reduce((sum, url) => sum + mediaSeconds(url, seed, DEFAULT_LENGTHS.referenceVideo), 0);
    const seconds = body.duration!;
    const referenceImages = body.reference_image_urls?.length ?? 0;
    return { seconds, resolution, price: h3Credits({ resolution, seconds, referenceImages, referenceVideoSeconds }) };
  }
  // With audio_url the video lasts as long as the audio, within the resolution's limit; duration is ignored.
  const seconds = body.audio_url
    ? Math.min(mediaSeconds(body.audio_url, seed, DEFAULT_LENGTHS.drivingAudio), BOREAL_MAX_SECONDS[resolution]!)
    : body.duration!;
  return { seconds, resolution, price: borealCredits(resolution, seconds) };
}

function borealView(core: SandboxCore, job: Job): Record<string, unknown> {
  return {
    ...jobBasics(core, job), ...job.fields, status: job.status,
    video_output: downloadUrl(core, job, 'video.mp4'),
  };
}

export const registerBoreal: Registrar = (router, core) => {
  core.webhookPolicies.boreal = subsetWebhook('video_output', (job) => borealView(core, job));

  router.add('POST', '/api/boreal/', (ctx) => {
    const body = ctx.parse(BorealCreate);
    const quote = borealQuote(body, core.options.seed);
    const job = core.create({
      family: 'boreal', kind: 'boreal', path: ctx.path, request: body, price: quote.price, webhookUrl: body.webhook_url,
      fields: {
        prompt: body.prompt, model: body.model ?? 'boreal', image_url: body.image_url ?? null, end_image_url: body.end_image_url ?? null,
        audio_url: body.audio_url ?? null, reference_image_urls: body.reference_image_urls ?? [],
        reference_video_urls: body.reference_video_urls ?? [],
        reference_audio_urls: body.reference_audio_urls ?? [], resolution: quote.resolution, aspect_ratio: body.aspect_ratio ?? 'auto',
        duration: quote.seconds, negative_prompt: body.negative_prompt ?? null, prompt_enhancement: body.prompt_enhancement ?? 'auto',
        webhook_url: body.webhook_url ?? null,
      },
      plan: () => workPlan(core, {
        initial: { status: 'pending', seconds: PENDING_SECONDS },
        queueStatus: 'in_queue',
        work: [{ status: 'running', seconds: quote.seconds * RENDER_SECONDS_PER_VIDEO_SECOND }],
        done: 'done', onDone: (done) => putOutput(core, done, 'video.mp4', () => SAMPLE_MP4), rejectable: true,
      }),
    });
    return json(201, borealView(core, job));
  }, { creates: true });
  router.add('GET', '/api/boreal/{id}/', (ctx) => json(200, borealView(core, findJob(core, 'boreal', ctx, 'Boreal'))));
};
