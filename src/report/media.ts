/**
 * How the report shows a file: a video player, a sandboxed frame for an HTML ad, a picture, an
 * audio player, or a link. Told by the content type the download recorded, else by extension.
 */
export type Media = 'video' | 'html' | 'image' | 'audio' | 'text' | 'file';

const BY_EXTENSION: Record<string, Media> = {
  mp4: 'video', mov: 'video', webm: 'video', m4v: 'video',
  html: 'html', htm: 'html',
  png: 'image', jpg: 'image', jpeg: 'image', webp: 'image', gif: 'image',
  mp3: 'audio', wav: 'audio', m4a: 'audio', aac: 'audio', ogg: 'audio',
  txt: 'text',
};

export function mediaOf(path: string, contentType: string | null): Media {
  const type = contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (type.startsWith('video/')) return 'video';
  if (type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('audio/')) return 'audio';
  if (type === 'text/plain') return 'text';
  return BY_EXTENSION[/\.([A-Za-z0-9]+)$/.exec(path)?.[1]?.toLowerCase() ?? ''] ?? 'file';
}
