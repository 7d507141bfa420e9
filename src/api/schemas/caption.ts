import { z } from 'zod';

export const CAPTION_STYLES = [
  'normal-black', 'normal-white', 'normal-red', 'normal-blue', 'neo', 'brick', 'frenzy', 'verana',
  'mustard', 'glow', 'mint', 'coolers', 'bilo', 'toons', 'deep-blue', 'mystique', 'caution',
  'duality', 'comic-shadow', 'clean-bold', 'soft-pill', 'underline-bold', 'classic-duo',
  'hand-script', 'button-glow', 'emboss-outline', 'standard-bold', 'outlined-text', 'quiet-serif',
  'editorial-clean', 'shout-block', 'word-flash', 'promo-punch', 'light-word', 'tagline-bold',
  'glow-speak', 'black-block', 'zoom-punch',
] as const;

/**
 * Font families. The spec says Plex Mono "carries a company prefix in the wire value"; the prefix is
 * the type foundry's (IBM), so the wire value is `IBM Plex Mono` (docs/assumptions.md).
 */
export const FONT_FAMILIES = [
  'Montserrat', 'Jockey One', 'Lilita One', 'Mclaren', 'Corben', 'Dela Gothic One', 'Comfortaa',
  'Luckiest Guy', 'Quantico', 'Poppins', 'Arimo', 'Open Sans', 'League Spartan', 'Anton', 'DM Sans',
  'Archivo Black', 'Space Grotesk', 'Alice', 'Pacifico', 'Lora', 'Comic Neue', 'Cinzel',
  'Playfair Display', 'Bodoni Moda', 'Alata', 'Orbitron', 'IBM Plex Mono', 'Stalemate', 'Tektur',
  'Fredoka', 'Radio Canada', 'Abril Fatface', 'Allura', 'Ballet', 'Noto Serif', 'Joti One',
  'Berkshire Swash', 'Rubik Dirt', 'Figtree', 'Roboto', 'Oswald',
] as const;

export const FONT_STYLES = ['font-bold', 'italic', 'underline'] as const;

/** #RRGGBBAA: hex colour with alpha. */
const HexColor = z.string().regex(/^#[0-9a-fA-F]{8}$/, 'must be a colour #RRGGBBAA');

/** The Caption object; every field optional in a request (the service applies the defaults). */
export const Caption = z.strictObject({
  style: z.enum(CAPTION_STYLES).optional(),
  offset: z.strictObject({ x: z.number(), y: z.number() }).optional(),
  font_family: z.enum(FONT_FAMILIES).optional(),
  font_size: z.int().optional(),
  font_style: z.enum(FONT_STYLES).nullish(),
  background_color: HexColor.nullish(),
  text_color: HexColor.nullish(),
  highlight_text_color: HexColor.nullish(),
  max_width: z.int().nullish(),
  line_height: z.number().nullish(),
  text_shadow: z.string().nullish(),
  hidden: z.boolean().optional(),
  override_visual_style: z.boolean().optional(),
});
export type Caption = z.infer<typeof Caption>;

/** As read back: loose, so a caption field added later does not break reads. */
export const CaptionRead = z.looseObject(Caption.shape);

/** Defaults the spec states for a caption; `null` caption_setting means all of them. */
export const CAPTION_DEFAULTS = {
  style: 'normal-black',
  offset: { x: 0, y: 0.4 },
  font_family: 'Montserrat',
  font_size: 70,
  hidden: false,
  override_visual_style: false,
} as const;
