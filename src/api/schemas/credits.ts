import { z } from 'zod';

/** GET /api/remaining_credits/ (behaviour notes). */
export const RemainingCredits = z.looseObject({ remaining_credits: z.number() });
export type RemainingCredits = z.infer<typeof RemainingCredits>;
