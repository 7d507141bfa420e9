import { InvalidInputError } from '../errors.js';

/** Visible ASCII, `!` to `~`: what an API id or key is made of. */
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * Refuses a credential that cannot go out as an HTTP header value, naming where it came from
 * (`REELPIPE_API_KEY`, or the client option) and the offending character's position and code
 * point, never the value itself.
 *
 * Why at client creation: a key pasted with a zero-width space or a newline used to pass here and
 * be refused by the HTTP layer on every request, where a refused creating POST looked like one
 * that may have been sent (jobs in doubt, stuck in `submitting`). Checked up front, nothing has
 * left the process, and the operator gets a configuration error (exit 2). Why visible ASCII only
 * (no spaces, no Latin-1): header values allow a little more, but no API id or key contains a
 * space or an accented letter; one that does was mangled on its way into the environment.
 */
export function assertHeaderValue(variable: string, value: string): void {
  if (VISIBLE_ASCII.test(value)) return;
  const chars = [...value];
  const at = chars.findIndex((c) => !VISIBLE_ASCII.test(c));
  const code = chars[at]!.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
  const message =
    `character ${at + 1} of ${chars.length} is U+${code}, which cannot be sent in an HTTP header ` +
    '(only visible ASCII is accepted: no spaces, line breaks, invisible or accented characters); ' +
    'the value is not shown: copy it again from the account settings page';
  throw new InvalidInputError([{ path: variable, message }], 'invalid configuration: nothing was sent');
}
