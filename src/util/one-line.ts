/**
 * A service's error text made fit for one line of a log or a summary. Why: a proxy in front of
 * the service answers a 500 with a whole HTML page; printed as it came, it broke the cron log
 * into dozens of lines of markup. What a person needs is its words, on one line, bounded.
 */

/** Characters kept of one service text. Why 200: a reason fits a wide terminal line; the rest is in the run log. */
export const ONE_LINE_MAX = 200;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/**
 * `text` on one line: the content of `<script>` and `<style>` elements and HTML comments dropped,
 * tags removed, common entities decoded, control characters and every run of whitespace
 * (newlines included) one space, and cut to `max` characters with `…`.
 * @default max ONE_LINE_MAX
 */
export function oneLine(text: string, max = ONE_LINE_MAX): string {
  return flatText(looksLikeHtml(text) ? stripHtml(text) : text, max);
}

/**
 * `text` as it is (markup and all) on one line: control characters and every run of whitespace
 * one space, cut to `max` characters (code points) with `…`. For users' own words (a script, a
 * prompt), which may hold `<` without being a page.
 * @default max ONE_LINE_MAX
 */
export function flatText(text: string, max = ONE_LINE_MAX): string {
  const spaced = printable(text).replace(/\s+/g, ' ').trim();
  if (spaced.length <= max) return spaced;
  // By code point: a cut never splits an emoji's surrogate pair.
  const chars = [...spaced];
  return chars.length <= max ? spaced : `${chars.slice(0, Math.max(0, max - 1)).join('').trimEnd()}…`;
}

/**
 * Control characters (C0, DEL, C1: newlines, escapes) as spaces. Why: labels come from users'
 * files and reasons from the service; printed raw, an escape sequence in either would move a
 * terminal's cursor and garble the progress block.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const printable = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ');

function looksLikeHtml(text: string): boolean {
  return /<\/?[a-z!][^>]*>/i.test(text);
}

function stripHtml(html: string): string {
  return html
    .replace(/<!--[\s\S]*?(-->|$)/g, ' ')
    .replace(/<(script|style)\b[\s\S]*?(<\/\1\s*>|$)/gi, ' ')
    .replace(/<\/?[a-z!][^>]*(>|$)/gi, ' ')
    .replace(/&(#39|[a-z]+);/gi, (whole, name: string) => ENTITIES[name.toLowerCase()] ?? whole);
}
