/**
 * Numbers as people read them, shared by every room that prints (plan, run, report): one
 * formatter, so the plan, the summary, `status` and the report never write one figure two ways.
 *
 * Why not toLocaleString: its first call loads ICU's number formatting, about 20 ms of every
 * command's start on the benchmark machine, and each call with options builds a formatter anew.
 * The text is the same as toLocaleString('en-US') gives (test/util/format.test.ts compares them);
 * what this does not cover (non-finite, -0, beyond 10^15) is handed to toLocaleString.
 */

/** 1,234.5 — credits, to a tenth at most (Aurora and Boreal-H3 prices have tenths). */
export function formatCredits(n: number): string {
  if (!plain(n)) return n.toLocaleString('en-US', { maximumFractionDigits: 1 });
  const text = tenths(Math.abs(n));
  return n < 0 ? `-${text}` : text;
}

/**
 * A non-negative number to a tenth at most, rounded as Intl rounds: the number's shortest decimal
 * form (what String gives: 0.15, not the double's exact 0.1499…), half away from zero.
 */
function tenths(n: number): string {
  // Below 0.05 it rounds to 0; that also covers the forms String writes with an exponent (1e-7).
  if (n < 0.05) return '0';
  const [whole = '0', fraction = ''] = String(n).split('.');
  let tenth = Number(fraction[0] ?? '0');
  let units = whole;
  if (fraction.length > 1 && (fraction[1] as string) >= '5' && ++tenth === 10) {
    tenth = 0;
    units = String(Number(whole) + 1);
  }
  return tenth === 0 ? grouped(units) : `${grouped(units)}.${tenth}`;
}

/** 12,345 — a count (a fraction is printed to three places, as toLocaleString does). */
export function formatCount(n: number): string {
  return Number.isInteger(n) && plain(n) ? (n < 0 ? `-${grouped(String(-n))}` : grouped(String(n))) : n.toLocaleString('en-US');
}

/** `1 step`, `5 steps`: a count with its noun agreeing. */
export const plural = (n: number, word: string) => `${formatCount(n)} ${word}${n === 1 ? '' : 's'}`;

const plain = (n: number) => Number.isFinite(n) && Math.abs(n) < 1e15 && !Object.is(n, -0);

/** Digits with a comma before every group of three from the right. */
function grouped(digits: string): string {
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return out;
}
