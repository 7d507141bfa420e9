/** Randomness, as a seam: a function returning a float in [0, 1). */
export type Random = () => number;

/**
 * mulberry32: a tiny, fast, seeded PRNG. Same seed, same sequence, so a sandbox fault profile or
 * a jittered schedule can be replayed exactly.
 */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
