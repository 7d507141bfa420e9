import type { HtmlAdStyleEntry } from '../catalogues/html-ad-styles.js';

/** What an ad is built from: exactly what the link holds, plus the job's own direction. */
export interface AdInput {
  title: string;
  description: string;
  imageUrls: string[];
  logoUrl: string;
  promotionInfo: string;
  customPrompt: string;
}

/** An image as the ad carries it: always embedded, so the file is self-contained. */
export interface AdImage {
  /** A data: URI. */
  src: string;
  /**
   * Bytes the real image adds beyond what `src` holds: 0 for an image the sandbox serves (its bytes
   * are embedded as they are), the compressed size of a photo the sandbox cannot fetch (the ad
   * embeds a small generated stand-in, and counts the size the service's compressed photo takes).
   */
  extraBytes: number;
}

const MB = 1024 * 1024;
/** Why: a product photo compressed for a playable ad is about 150 KB. */
const DEFAULT_IMAGE_BYTES = 0.15 * MB;

/**
 * The compressed size of an image the sandbox cannot fetch. A URL may state it with `size_mb=N`
 * (query or fragment), which is how a test makes an ad too large on purpose.
 */
export function notionalImageBytes(url: string): number {
  const stated = /[?#&]size_mb=([\d.]+)/.exec(url);
  return stated ? Number(stated[1]) * MB : DEFAULT_IMAGE_BYTES;
}

/** Games and quizzes show one hero image; showcases and swipes show every image. */
export const imagesFor = (style: HtmlAdStyleEntry, images: AdImage[]) =>
  style.type === 'game' || style.type === 'quiz' ? images.slice(0, 1) : images;

const escape = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const SCRIPTS: Record<HtmlAdStyleEntry['type'], string> = {
  game: `let score=0;document.querySelectorAll('.tile').forEach(t=>t.addEventListener('click',()=>{t.classList.add('open');score++;
if(score>=3)document.getElementById('cta').hidden=false;}));`,
  quiz: `const qs=[...document.querySelectorAll('.q')];let i=0;
qs.forEach(q=>q.addEventListener('click',e=>{if(!e.target.matches('button'))return;
q.hidden=true;i++;if(qs[i])qs[i].hidden=false;else document.getElementById('cta').hidden=false;}));
qs.slice(1).forEach(q=>q.hidden=true);`,
  showcase: `const s=[...document.querySelectorAll('.slide')];let i=0;const show=()=>s.forEach((e,k)=>e.hidden=k!==i);show();
document.getElementById('next').onclick=()=>{i=(i+1)%s.length;show();};document.getElementById('cta').hidden=false;`,
  swipe: `const c=[...document.querySelectorAll('.slide')];let i=0;document.getElementById('next').onclick=()=>{if(c[i])c[i].hidden=true;i++;
if(i>=c.length)document.getElementById('cta').hidden=false;};`,
};

function body(style: HtmlAdStyleEntry, ad: AdInput, images: AdImage[]): string {
  const pictures = images.map((img, k) => `<img class="slide" src="${escape(img.src)}" alt="${escape(ad.title)} ${k + 1}">`).join('');
  if (style.type === 'game') {
    const tiles = [1, 2, 3, 4, 5, 6].map((n) => `<button class="tile">${n}</button>`).join('');
    return `${pictures}<div class="tiles">${tiles}</div><p>Open three tiles to unlock the offer</p>`;
  }
  if (style.type === 'quiz') {
    const questions = ['Would you try it?', 'Is it for you or a gift?', 'Ready today?'];
    return `${pictures}${questions.map((q) => `<div class="q"><p>${q}</p><button>Yes</button><button>Not yet</button></div>`).join('')}`;
  }
  return `<div class="deck">${pictures}</div><button id="next">Next</button>`;
}

/**
 * One self-contained playable HTML ad: inline CSS and script, images and logo embedded, nothing
 * fetched from anywhere when it plays.
 */
export function renderHtmlAd(style: HtmlAdStyleEntry, ad: AdInput, images: AdImage[], logo: AdImage | undefined): string {
  const offer = ad.promotionInfo || 'Discover it now';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(ad.title)} · ${escape(style.name)}</title>
<meta name="ad-style" content="${escape(style.id)}"><meta name="ad-direction" content="${escape(ad.customPrompt)}">
<style>body{margin:0;font-family:system-ui,sans-serif;background:#111;color:#fff;text-align:center}
header{display:flex;align-items:center;gap:8px;padding:8px}header img{height:32px}img.slide{max-width:100%;max-height:50vh}
.tiles{display:grid;grid-template-columns:repeat(3,1fr);gap:6px;padding:8px}.tile.open{background:#fc0}
button{font-size:1rem;padding:8px 14px;margin:4px;border-radius:8px;border:0}#cta{background:#fc0;color:#111;font-weight:700}</style>
</head><body data-style="${escape(style.id)}" data-type="${style.type}">
<header>${logo ? `<img src="${escape(logo.src)}" alt="logo">` : ''}<h1>${escape(ad.title)}</h1></header>
<p>${escape(ad.description)}</p>
${body(style, ad, images)}
<a id="cta" hidden href="#" role="button">${escape(offer)}</a>
<script>${SCRIPTS[style.type]}</script>
</body></html>
`;
}

/** Size of the ad as the service would deliver it: its HTML plus the photos stood in for. */
export function adBytes(html: string, images: AdImage[]): number {
  return Buffer.byteLength(html) + images.reduce((sum, img) => sum + img.extraBytes, 0);
}
