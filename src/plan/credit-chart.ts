import { formatCredits } from '../util/format.js';
import type { Plan } from './types.js';

/**
 * The plan's credits per step as a bar chart under its table, so the step that costs the most is
 * seen before it is read: █ up to the expected figure, ░ on to the high estimate. A step nobody
 * prices has no bar (`?`), never a zero one; one that is partly unknown is marked `+?`.
 */
const WIDTH = 40;
const EIGHTHS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];

export function creditChart(plan: Plan): string[] {
  const highest = Math.max(0, ...plan.steps.map((s) => s.credits?.high ?? 0));
  if (highest === 0) return [];
  const idWidth = Math.max(...plan.steps.map((s) => s.id.length));
  const lines = ['credits per step: █ expected, ░ up to the high estimate'];
  for (const step of plan.steps) {
    const name = step.id.padEnd(idWidth);
    if (!step.credits) {
      lines.push(`${name}  ${''.padEnd(WIDTH)}  ? (unknown)`);
      continue;
    }
    const { expected, high } = step.credits;
    const mark = step.unknownJobs > 0 ? '+?' : '';
    const range = high > expected ? ` (up to ${formatCredits(high)})` : '';
    lines.push(`${name}  ${bar(expected, high, highest)}  ${formatCredits(expected)}${mark}${range}`);
  }
  return lines;
}

/** WIDTH cells: whole and eighth blocks for `expected`, shade on to `high`, spaces after. */
function bar(expected: number, high: number, highest: number): string {
  const eighths = Math.round((expected / highest) * WIDTH * 8);
  const solid = '█'.repeat(Math.floor(eighths / 8)) + EIGHTHS[eighths % 8];
  const shade = '░'.repeat(Math.max(0, Math.ceil((high / highest) * WIDTH) - solid.length));
  return (solid + shade).padEnd(WIDTH);
}
