import { LinkCreate, LinkUpdate, LinkWithParams, VoiceCreate } from '../../api/schemas/index.js';
import { LINK_SCRAPE_CREDITS } from '../../pricing/index.js';
import type { SandboxCore } from '../core.js';
import { json } from '../http/reply.js';
import { SAMPLE_MP4 } from '../outputs/media.js';
import { LINK_WITH_PARAMS_CREDITS, VOICE_CLONE_CREDITS } from '../prices.js';
import type { Job } from '../store.js';
import { findJob, outputUrl, putOutput, type Registrar } from './common.js';

/** Links have no life cycle: made at once, then read and updated. */
const linkView = (job: Job) => ({ id: job.id, ...job.fields });

const titleCase = (text: string) => text.replace(/[-_]+/g, ' ').replace(/\b\w/g, (c) => c.toUpperCase()).trim();

/**
 * What "scraping" a page yields in the sandbox: a title from the page address, three product
 * images and a logo served by the sandbox itself (so HTML ads can embed them), and a summary.
 */
function scrape(core: SandboxCore, url: string, id: string): Record<string, unknown> {
  const page = new URL(url);
  const slug = page.pathname.split('/').filter(Boolean).pop() ?? page.hostname;
  const title = titleCase(decodeURIComponent(slug).replace(/\.\w+$/, '')) || page.hostname;
  return {
    url, title, description: `${title}, as sold on ${page.hostname}.`,
    image_urls: [1, 2, 3].map((n) => core.cdn.mediaUrl(`link-${id}-${n}.png`)), video_urls: [], reviews: null,
    logo_url: core.cdn.mediaUrl(`logo-${page.hostname}.png`), ai_summary: `${title}: a product page on ${page.hostname}.`,
    ai_industry: 'E-commerce', ai_target_audiences: null,
  };
}

export const registerLinks: Registrar = (router, core) => {
  router.add('POST', '/api/links/', (ctx) => {
    const body = ctx.parse(LinkCreate);
    const job = core.create({ family: 'link', kind: 'link', path: ctx.path, request: body, price: LINK_SCRAPE_CREDITS, fields: {} });
    job.fields = scrape(core, body.url, job.id);
    job.creditsUsed = job.charged;
    return json(201, linkView(job));
  }, { creates: true });

  router.add('POST', '/api/links/link_with_params/', (ctx) => {
    const body = ctx.parse(LinkWithParams);
    const fields = {
      url: body.url ?? '', title: body.title, description: body.description ?? '', image_urls: body.image_urls,
      video_urls: body.video_urls ?? [], reviews: null, logo_url: body.logo_url ?? '', ai_summary: '', ai_industry: '',
      ai_target_audiences: null,
    };
    const job = core.create({
      family: 'link', kind: 'link_with_params', path: ctx.path, request: body, price: LINK_WITH_PARAMS_CREDITS, fields,
    });
    return json(201, linkView(job));
  }, { creates: true });

  router.add('PUT', '/api/links/{id}/', (ctx) => {
    const job = findJob(core, 'link', ctx, 'Link');
    const body = ctx.parse(LinkUpdate);
    Object.assign(job.fields, body);
    job.updatedAt = core.now();
    return json(200, linkView(job));
  });
  router.add('GET', '/api/links/{id}/', (ctx) => json(200, linkView(findJob(core, 'link', ctx, 'Link'))));

  router.add('POST', '/api/voices/', (ctx) => {
    const body = ctx.parse(VoiceCreate);
    const job = core.create({
      family: 'voice', kind: 'voice_clone', path: ctx.path, request: body, price: VOICE_CLONE_CREDITS, fields: { ...body },
    });
    putOutput(core, job, 'preview.m4a', () => SAMPLE_MP4);
    const gender = Number.parseInt(job.id.slice(0, 2), 16) % 2 === 0 ? 'male' : 'female';
    const accents = [{ id: job.id, accent_name: body.name, preview_url: outputUrl(core, job, 'preview.m4a') }];
    return json(201, { name: body.name, accents, gender });
  }, { creates: true });
};
