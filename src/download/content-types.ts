/** What a file is expected to be, so an error page served with 200 is not saved as a video. */
export type OutputMedia = 'video' | 'html' | 'image' | 'audio' | 'asset' | 'text';

/**
 * Content types accepted per medium. Policy: CDNs often label media `application/octet-stream`
 * (or send nothing), so a generic binary type is accepted for binary media; an HTML or JSON body
 * where a video was expected is always refused: that is an error page, not the output.
 */
const ACCEPTED: Record<OutputMedia, RegExp> = {
  video: /^(video\/|application\/(octet-stream|mp4)|binary\/octet-stream)/,
  image: /^(image\/|application\/octet-stream|binary\/octet-stream)/,
  audio: /^(audio\/|application\/octet-stream|binary\/octet-stream)/,
  asset: /^(video\/|image\/|audio\/|application\/(octet-stream|mp4)|binary\/octet-stream)/,
  html: /^(text\/html|application\/xhtml\+xml)/,
  text: /^text\//,
};

export function isPlausibleContentType(media: OutputMedia, contentType: string | undefined): boolean {
  // A missing header is not evidence of an error page; size and the status still are checked.
  if (!contentType) return true;
  return ACCEPTED[media].test(contentType.trim().toLowerCase());
}

const EXT_BY_TYPE: Record<string, string> = {
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'video/webm': 'webm',
  'text/html': 'html',
  'application/xhtml+xml': 'html',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'image/gif': 'gif',
  'audio/mpeg': 'mp3',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mp4': 'm4a',
  'text/plain': 'txt',
};
const KNOWN_EXTS = new Set([...Object.values(EXT_BY_TYPE), 'jpeg', 'aac', 'ogg', 'htm']);
const DEFAULT_EXT: Record<OutputMedia, string> = {
  video: 'mp4',
  html: 'html',
  image: 'png',
  audio: 'mp3',
  asset: 'bin',
  text: 'txt',
};

/** The file extension: the URL's when it is a known media one, else the content type's, else the medium's. */
export function extensionFor(media: OutputMedia, url: string, contentType?: string): string {
  let fromUrl: string | undefined;
  try {
    fromUrl = /\.([A-Za-z0-9]{2,5})$/.exec(new URL(url).pathname)?.[1]?.toLowerCase();
  } catch {
    fromUrl = undefined;
  }
  if (fromUrl && KNOWN_EXTS.has(fromUrl)) return fromUrl;
  const type = contentType?.split(';')[0]?.trim().toLowerCase();
  return (type && EXT_BY_TYPE[type]) || DEFAULT_EXT[media];
}
