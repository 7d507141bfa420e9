/**
 * The sandbox's own HTML ad style catalogue: the styles it serves at
 * `GET /api/html_interactive_ads/styles/` and builds ads of. It is ours, invented for the sandbox
 * (the spec lists no style ids): the planner never treats it as the service's truth — against the
 * service, style ids are checked against the service's own list (plan/style-catalogue.ts); only a
 * plan or run against the embedded sandbox uses this one, as that sandbox's live catalogue.
 * Style ids are strings (the spec's `style_ids: string[]`).
 */
export interface HtmlAdStyleEntry {
  id: string;
  name: string;
  type: 'game' | 'quiz' | 'showcase' | 'swipe';
  interactive: boolean;
}

const entry = (id: string, name: string, type: HtmlAdStyleEntry['type'], interactive = true): HtmlAdStyleEntry => ({
  id,
  name,
  type,
  interactive,
});

export const HTML_AD_STYLES: readonly HtmlAdStyleEntry[] = [
  entry('scratch-card', 'Scratch Card', 'game'),
  entry('spin-wheel', 'Spin the Wheel', 'game'),
  entry('tap-to-reveal', 'Tap to Reveal', 'game'),
  entry('memory-match', 'Memory Match', 'game'),
  entry('catch-falling', 'Catch the Falling Items', 'game'),
  entry('runner-dash', 'Runner Dash', 'game'),
  entry('puzzle-slide', 'Sliding Puzzle', 'game'),
  entry('pop-the-bubbles', 'Pop the Bubbles', 'game'),
  entry('quiz-3q', 'Three-Question Quiz', 'quiz'),
  entry('this-or-that', 'This or That', 'quiz'),
  entry('personality-pick', 'Personality Pick', 'quiz'),
  entry('price-guess', 'Guess the Price', 'quiz'),
  entry('carousel', 'Product Carousel', 'showcase', false),
  entry('hero-zoom', 'Hero Zoom', 'showcase', false),
  entry('before-after', 'Before / After Slider', 'showcase'),
  entry('feature-tour', 'Feature Tour', 'showcase'),
  entry('countdown-offer', 'Countdown Offer', 'showcase', false),
  entry('unboxing', 'Unboxing', 'showcase'),
  entry('swipe-deck', 'Swipe Deck', 'swipe'),
  entry('story-cards', 'Story Cards', 'swipe'),
  entry('color-picker', 'Colour Picker', 'swipe'),
  entry('size-finder', 'Size Finder', 'swipe'),
  entry('review-wall', 'Review Wall', 'swipe', false),
  entry('lookbook', 'Lookbook', 'swipe', false),
];
