// A seeded pseudo-random stream (mulberry32): every choice the soak makes — kill delays, which
// runs also lose the sandbox — follows from --seed, so a failing soak can be run again as it was.

/** A stream of floats in [0, 1) from a 32-bit seed. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    /** A float in [low, high). */
    between: (low, high) => low + (high - low) * next(),
    /** A whole number in [low, high]. */
    int: (low, high) => low + Math.floor(next() * (high - low + 1)),
    /** `count` distinct whole numbers from [0, n), sorted. */
    pick: (n, count) => {
      const all = Array.from({ length: n }, (_, i) => i);
      for (let i = all.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [all[i], all[j]] = [all[j], all[i]];
      }
      return all.slice(0, Math.min(count, n)).sort((a, b) => a - b);
    },
  };
}
