import { AdCloneCreate } from '../../api/schemas/index.js';
import type { SandboxCore } from '../core.js';
import { workPlan } from '../engine/plans.js';
import { badField, json } from '../http/reply.js';
import { DEFAULT_LENGTHS, mediaSeconds } from '../media-length.js';
import { SAMPLE_MP4 } from '../outputs/media.js';
import { adCloneCredits } from '../prices.js';
import type { Job } from '../store.js';
import { downloadUrl, findJob, jobBasics, putOutput, subsetWebhook, type Registrar } from './common.js';

/**
 * Ad clones: pending → in_queue → running → done | failed | rejected. The pending step is instant,
 * so with a free render slot the 201 body already reads running, as observed. Cloning takes about
 * six times the reference ad's length.
 */
const RENDER_SECONDS_PER_VIDEO_SECOND = 6;

function cloneView(core: SandboxCore, job: Job): Record<string, unknown> {
  return {
    ...jobBasics(core, job), ...job.fields, status: job.status,
    video_output: downloadUrl(core, job, 'video.mp4'),
  };
}

export const registerAdClone: Registrar = (router, core) => {
  core.webhookPolicies.ad_clone = subsetWebhook('video_output', (job) => cloneView(core, job));

  router.add('POST', '/api/ads_clone/', (ctx) => {
    const body = ctx.parse(AdCloneCreate);
    const link = core.store.get('link', body.link);
    if (!link) throw badField('link', 'Invalid link ID');
    if (((link.fields.image_urls as string[] | undefined) ?? []).length === 0) {
      throw badField('link', 'The link must contain at least one image.');
    }
    const seconds = mediaSeconds(body.video_url, core.options.seed, DEFAULT_LENGTHS.referenceAd);
    const job = core.create({
      family: 'ad_clone', kind: 'ad_clone', path: ctx.path, request: body, price: adCloneCredits(seconds), webhookUrl: body.webhook_url,
      fields: {
        link: link.id, video_url: body.video_url, aspect_ratio: body.aspect_ratio ?? '9x16', language: body.language ?? null,
        media_job: core.newId(), webhook_url: body.webhook_url ?? null,
      },
      plan: () => workPlan(core, {
        initial: { status: 'pending', seconds: 0 },
        queueStatus: 'in_queue',
        dispatchSeconds: 0,
        work: [{ status: 'running', seconds: seconds * RENDER_SECONDS_PER_VIDEO_SECOND }],
        done: 'done', onDone: (done) => putOutput(core, done, 'video.mp4', () => SAMPLE_MP4), rejectable: true,
      }),
    });
    return json(201, cloneView(core, job));
  }, { creates: true });

  router.add('GET', '/api/ads_clone/', () => json(200, core.store.list('ad_clone').map((job) => cloneView(core, job))));
  router.add('GET', '/api/ads_clone/{id}/', (ctx) => json(200, cloneView(core, findJob(core, 'ad_clone', ctx, 'AdClone'))));
};
