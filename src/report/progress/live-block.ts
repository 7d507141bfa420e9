import { fitToWidth } from './fit.js';

/** Control Sequence Introducer: `ESC [`, the start of every cursor command below. */
const CSI = '\x1b[';

/** A terminal's size in character cells. */
export interface TerminalSize {
  columns: number;
  rows: number;
}

/**
 * A block of lines kept at the bottom of a terminal and redrawn in place; lines printed "above"
 * scroll up past it and stay. Each render is one write: the cursor goes up over the old block
 * (`CSI n A`, then column 0), everything below is erased (`CSI J`), the new lines above are
 * written, then the block. Every block line is cut to the width and the block to the height,
 * so each line takes exactly one row and the next render finds the block where it left it.
 */
export class LiveBlock {
  private height = 0;

  constructor(
    private readonly write: (text: string) => void,
    private readonly size: () => TerminalSize,
  ) {}

  render(lines: readonly string[], above: readonly string[] = []): void {
    const { columns, rows } = this.size();
    // The block never fills the screen: a row is kept for the cursor, so moving up never passes the top.
    const kept = lines.slice(Math.max(0, lines.length - Math.max(1, rows - 1)));
    const erase = this.height > 0 ? `${CSI}${this.height}A\r${CSI}J` : '';
    const block = kept.map((line) => `${fitToWidth(line, columns)}\n`).join('');
    this.write(`${erase}${above.map((line) => `${line}\n`).join('')}${block}`);
    this.height = kept.length;
  }
}
