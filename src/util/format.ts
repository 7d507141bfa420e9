/**
 * Numbers as people read them, shared by every room that prints (plan, run, report): one
 * formatter, so the plan, the summary, `status` and the report never write one figure two ways.
 */

/** 1,234.5 — credits, to a tenth at most (Aurora and Boreal-H3 prices have tenths). */
export const formatCredits = (n: number) => n.toLocaleString('en-US', { maximumFractionDigits: 1 });

/** `1 step`, `5 steps`: a count with its noun agreeing. */
export const plural = (n: number, word: string) => `${n.toLocaleString('en-US')} ${word}${n === 1 ? '' : 's'}`;
