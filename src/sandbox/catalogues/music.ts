/** One track of the sandbox's music library. */
export interface Track {
  id: number;
  name: string;
  category: string[];
  duration: number;
  file: string;
}

const MOODS = ['Bright', 'Quiet', 'Golden', 'Electric', 'Midnight', 'Sunny', 'Velvet', 'Rapid'];
const THINGS = ['Drive', 'Horizon', 'Morning', 'Pulse', 'Garden', 'Skyline'];
const CATEGORIES = ['upbeat', 'calm', 'corporate', 'cinematic', 'hip hop', 'acoustic'];

/** 48 tracks, each in one or two categories, 60 to 180 s long; the same list on every start. */
export const MUSIC_LIBRARY: Track[] = MOODS.flatMap((mood, m) =>
  THINGS.map((thing, t) => {
    const id = m * THINGS.length + t + 1;
    const category = [CATEGORIES[id % CATEGORIES.length]!, ...(id % 3 === 0 ? [CATEGORIES[(id + 2) % CATEGORIES.length]!] : [])];
    return { id, name: `${mood} ${thing}`, category, duration: 60 + ((id * 37) % 121), file: `music-${id}.m4a` };
  }),
);
