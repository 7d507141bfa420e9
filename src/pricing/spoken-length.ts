/**
 * How long a script takes to say. An AI Short's length (and so its price) follows its script's
 * spoken length, which only the service knows exactly; the sandbox and the planner both use this
 * model so an estimate brackets what the sandbox charges.
 *
 * Narration runs at about 150 words a minute (2.5 words/s); brisk ad reads reach 3 words/s and slow,
 * dramatic ones 2 words/s. Videos add an intro/outro of about 2 seconds.
 */
export const WORDS_PER_SECOND = { fast: 3, typical: 2.5, slow: 2 } as const;
export const PADDING_SECONDS = 2;

export interface SecondsRange {
  low: number;
  expected: number;
  high: number;
}

export function countWords(text: string): number {
  const words = text.trim().split(/\s+/u).filter(Boolean);
  return words.length;
}

export function spokenSeconds(text: string): SecondsRange {
  const words = countWords(text);
  const at = (rate: number) => Math.max(1, Math.ceil(words / rate + PADDING_SECONDS));
  return { low: at(WORDS_PER_SECOND.fast), expected: at(WORDS_PER_SECOND.typical), high: at(WORDS_PER_SECOND.slow) };
}
