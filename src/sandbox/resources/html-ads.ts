import { HTML_AD_STYLES, type HtmlAdStyleEntry } from '../catalogues/html-ad-styles.js';
import { HTML_AD_SIZE_MB, HtmlAdCreate } from '../../api/schemas/index.js';
import { HTML_AD_CREDITS, htmlAdsCredits } from '../../pricing/index.js';
import type { SandboxCore } from '../core.js';
import { fail, workPlan } from '../engine/plans.js';
import { badField, fieldError, json } from '../http/reply.js';
import { adBytes, imagesFor, notionalImageBytes, renderHtmlAd, type AdImage, type AdInput } from '../outputs/html-ad.js';
import { coloursFor, makePng } from '../outputs/media.js';
import type { Job } from '../store.js';
import { downloadUrl, findJob, jobBasics, listFilter, putOutput, subsetWebhook, type Registrar } from './common.js';

/**
 * HTML interactive ads: pending → running → done | failed. One self-contained HTML file per style,
 * built at the end from what the link held when the job was created. An ad that does not fit within
 * max_size_mb fails on its own and its 10 credits are refunded (spec, Limits); when every ad fails,
 * the job fails. Building takes about 8 s per ad.
 */
const PENDING_SECONDS = 2;
const SECONDS_PER_AD = 8;
const MB = 1024 * 1024;
const STYLES = new Map(HTML_AD_STYLES.map((style) => [style.id, style]));

interface AdItem {
  style_id: string;
  name: string;
  status: 'done' | 'failed';
  file?: string;
  failed_reason: string | null;
  size_bytes: number;
}

function adsView(core: SandboxCore, job: Job): Record<string, unknown> {
  const ads = ((job.fields.ads as AdItem[] | undefined) ?? []).map(({ file, ...item }) => ({
    ...item, url: file ? downloadUrl(core, job, file) : null,
  }));
  const { ad_input: _input, ads: _ads, too_large: _tooLarge, ...fields } = job.fields;
  // The spec types an HTML ad job's failed_reason as "string, null": null until it fails.
  const failed_reason = (job.fields.failed_reason as string | undefined) ?? null;
  return { ...jobBasics(core, job), status: job.status, ...fields, failed_reason, ads };
}

function checkStyles(styleIds: string[]): void {
  const unknown = Object.fromEntries(
    styleIds.flatMap((id, i) =>
      STYLES.has(id) ? [] : [[String(i), [`"${id}" is not a valid choice. See GET /api/html_interactive_ads/styles/.`]]],
    ),
  );
  if (Object.keys(unknown).length > 0) throw fieldError({ style_ids: unknown });
  const repeated = styleIds.filter((id, i) => styleIds.indexOf(id) !== i);
  if (repeated.length > 0) throw badField('style_ids', `Each style may be chosen once; repeated: ${[...new Set(repeated)].join(', ')}.`);
}

/**
 * An image as an ad carries it, always embedded: the sandbox's own bytes when it serves the image;
 * otherwise (it never fetches outside URLs) a small picture generated from the URL stands in, and
 * the photo's compressed size is counted against max_size_mb as the service would count it.
 */
function adImage(core: SandboxCore, url: string): AdImage {
  const media = core.cdn.mediaName(url);
  if (media === undefined) {
    const [from, to] = coloursFor(url);
    return { src: pngDataUri(makePng(64, 64, from, to)), extraBytes: notionalImageBytes(url) };
  }
  return { src: pngDataUri(core.cdn.mediaBytes(media)), extraBytes: 0 };
}

const pngDataUri = (bytes: Buffer) => `data:image/png;base64,${bytes.toString('base64')}`;

interface AdMedia {
  images: AdImage[];
  logo: AdImage | undefined;
}

function buildAd(core: SandboxCore, job: Job, style: HtmlAdStyleEntry, media: AdMedia): AdItem {
  const input = job.fields.ad_input as AdInput;
  const chosen = imagesFor(style, media.images);
  const html = renderHtmlAd(style, input, chosen, media.logo);
  // A file is a whole number of bytes; a stated or typical photo size may not be (0.15 MB).
  const size = Math.ceil(adBytes(html, media.logo ? [...chosen, media.logo] : chosen));
  const limit = ((job.fields.max_size_mb as number) ?? HTML_AD_SIZE_MB.default) * MB;
  const base = { style_id: style.id, name: style.name, size_bytes: size };
  if (size > limit || (job.fields.too_large as string[]).includes(style.id)) {
    const failed_reason = `The ad does not fit within ${limit / MB} MB even with images compressed.`;
    return { ...base, status: 'failed', failed_reason };
  }
  putOutput(core, job, `${style.id}.html`, () => Buffer.from(html));
  return { ...base, status: 'done', file: `${style.id}.html`, failed_reason: null };
}

function finishAds(core: SandboxCore, job: Job): void {
  const input = job.fields.ad_input as AdInput;
  const media: AdMedia = {
    images: input.imageUrls.map((url) => adImage(core, url)),
    logo: input.logoUrl ? adImage(core, input.logoUrl) : undefined,
  };
  const ads = (job.fields.style_ids as string[]).map((id) => buildAd(core, job, STYLES.get(id)!, media));
  job.fields.ads = ads;
  const failed = ads.filter((ad) => ad.status === 'failed').length;
  core.ledger.refund(job, failed * HTML_AD_CREDITS); // spec: failed ads are refunded
  job.creditsUsed = job.charged;
  if (failed === ads.length) fail(core, job, 'No ad could be built within max_size_mb.', true);
}

export const registerHtmlAds: Registrar = (router, core) => {
  core.webhookPolicies.html_ads = subsetWebhook('ads', (job) => adsView(core, job));

  router.add('GET', '/api/html_interactive_ads/styles/', () =>
    json(200, HTML_AD_STYLES.map((style) => ({ ...style, thumbnail_url: core.cdn.mediaUrl(`style-${style.id}.png`) }))));

  router.add('POST', '/api/html_interactive_ads/', (ctx) => {
    const body = ctx.parse(HtmlAdCreate);
    const link = core.store.get('link', body.link);
    if (!link) throw badField('link', 'Invalid link ID');
    checkStyles(body.style_ids);
    const l = link.fields;
    const adInput: AdInput = {
      title: String(l.title ?? ''), description: String(l.description ?? ''), imageUrls: (l.image_urls as string[] | undefined) ?? [],
      logoUrl: String(l.logo_url ?? ''), promotionInfo: body.promotion_info ?? '', customPrompt: body.custom_prompt ?? '',
    };
    const job = core.create({
      family: 'html_ads', kind: 'html_ads', path: ctx.path, request: body, price: htmlAdsCredits(body.style_ids.length),
      webhookUrl: body.webhook_url,
      fields: {
        link: link.id, style_ids: body.style_ids, promotion_info: body.promotion_info ?? null,
        custom_prompt: body.custom_prompt ?? null, max_size_mb: body.max_size_mb ?? HTML_AD_SIZE_MB.default,
        webhook_url: body.webhook_url ?? null, ad_input: adInput,
        // Why drawn now, not when the ads are built: a fault is decided when the job is made, so
        // the journal holds it and a replayed job fails the same ads.
        too_large: body.style_ids.filter(() => core.decide('adTooLarge')),
      },
      plan: () => workPlan(core, {
        initial: { status: 'pending', seconds: PENDING_SECONDS },
        work: [{ status: 'running', seconds: SECONDS_PER_AD * body.style_ids.length, leave: (job) => finishAds(core, job) }],
        done: (job) => (job.fields.failed_reason ? 'failed' : 'done'), onDone: () => undefined, refundOnFailure: true,
      }),
    });
    return json(201, adsView(core, job));
  }, { creates: true });

  router.add('GET', '/api/html_interactive_ads/', (ctx) => {
    return json(200, core.store.list('html_ads', listFilter(ctx.query)).map((job) => adsView(core, job)));
  });
  router.add('GET', '/api/html_interactive_ads/{id}/', (ctx) =>
    json(200, adsView(core, findJob(core, 'html_ads', ctx, 'HtmlInteractiveAd'))));
};
