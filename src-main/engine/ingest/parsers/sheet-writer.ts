// Rows of one spreadsheet sheet (XLSX or ODS) into the document text: one line per row, empty
// rows left out, at most `maxRows` rows (the cut is a warning), written in blocks of rows so the
// chunker can split a long sheet at row boundaries.
import type { DocBuilder } from './doc-builder.js';

const ROWS_PER_BLOCK = 50;

export class SheetWriter {
  private rows = 0;
  private block: string[] = [];
  private cut = false;

  constructor(
    private readonly out: DocBuilder,
    private readonly sheet: string,
    private readonly maxRows: number,
  ) {}

  /** True once the row bound or the text bound is reached: stop reading. */
  get full(): boolean {
    return this.cut || this.out.isFull;
  }

  row(cells: readonly string[]): void {
    if (this.full) return;
    const line = cells.map((c) => c.replace(/\s+/g, ' ').trim()).join(' | ').replace(/(?: \| )+$/, '');
    if (!line.replace(/[\s|]/g, '')) return;
    if (this.rows >= this.maxRows) {
      this.cut = true;
      this.out.warn(`sheet "${this.sheet}" has more than ${this.maxRows.toLocaleString('en-US')} rows; only the first ${this.maxRows.toLocaleString('en-US')} were indexed`);
      return;
    }
    this.rows++;
    this.block.push(line);
    if (this.block.length >= ROWS_PER_BLOCK) this.flush();
  }

  finish(): void {
    this.flush();
  }

  private flush(): void {
    if (this.block.length) this.out.lines(this.block);
    this.block = [];
  }
}

/** A large XML string in slices for a streaming parser (cut anywhere: the parser keeps state). */
export function* xmlChunks(xml: string, size = 1 << 20): Generator<string> {
  for (let i = 0; i < xml.length; i += size) yield xml.slice(i, i + size);
}
