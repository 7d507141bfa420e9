/**
 * Every text the report shows comes from users (labels, rows, names) or the service (reasons):
 * escaped for HTML text and attribute values alike, and for JSON inside a script element.
 */
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] as string);

/**
 * JSON safe inside `<script type="application/json">`: no `<` (so no `</script>` or `<!--`)
 * and no U+2028/2029 line separators, each written as its \u escape (still the same JSON).
 */
export const jsonForScript = (value: unknown): string =>
  JSON.stringify(value).replace(/[<\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
