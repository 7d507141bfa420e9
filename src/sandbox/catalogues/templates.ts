import type { TEMPLATE_VARIABLE_TYPES } from '../../api/schemas/index.js';

export type VariableType = (typeof TEMPLATE_VARIABLE_TYPES)[number];

/** A custom template as built in the editor: its variables by name, and its video's length. */
export interface SandboxTemplate {
  template_id: string;
  name: string;
  aspect_ratio: string;
  seconds: number;
  variables: Record<string, { type: VariableType; description: string }>;
}

/** The templates every sandbox account has; ids look like editor video ids. */
export const TEMPLATES: SandboxTemplate[] = [
  {
    template_id: 'vid_7f3a9c21', name: 'Product spotlight', aspect_ratio: '9x16', seconds: 20,
    variables: {
      headline: { type: 'text', description: 'Scene text: {{headline}}' },
      product_image: { type: 'image', description: 'The product photo' },
      presenter: { type: 'avatar', description: 'Who presents' },
      narration: { type: 'voiceover', description: 'The presenter voice' },
      background_music: { type: 'audio', description: 'Background music' },
    },
  },
  {
    template_id: 'vid_2b81e4d0', name: 'Countdown offer', aspect_ratio: '1x1', seconds: 15,
    variables: {
      offer: { type: 'text', description: 'Overlay text: {{offer}}' },
      deadline: { type: 'text', description: 'Overlay text: ends {{deadline}}' },
      hero_video: { type: 'video', description: 'Background video' },
    },
  },
  {
    template_id: 'vid_c4d2a9e7', name: 'Customer testimonial', aspect_ratio: '16x9', seconds: 30,
    variables: {
      quote: { type: 'text', description: 'Scene text: "{{quote}}"' },
      customer_name: { type: 'text', description: 'Overlay text: {{customer_name}}' },
      speaker: { type: 'avatar', description: 'Who speaks the quote' },
      voice: { type: 'voiceover', description: 'The speaker voice' },
    },
  },
];
