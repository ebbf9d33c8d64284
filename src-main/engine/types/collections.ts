// Collections as the faces see them. Types only: the renderer imports this folder (through
// api/), so nothing here may import runtime code or node modules.

export interface AddCollectionInput {
  root: string;
  name?: string;
  include?: string[];
  exclude?: string[];
  context?: string;
  /** Languages OCR reads its scans in (Tesseract codes: eng, deu, chi_sim …); default English. */
  ocrLanguages?: string[];
}

export interface CollectionInfo {
  name: string;
  root: string;
  include: string[];
  exclude: string[];
  context: string;
  documents: number;
  chunks: number;
  skipped: number;
  failed: number;
  /** Indexed documents per kind (markdown, pdf, docx, …). */
  kinds: Record<string, number>;
  createdAt: string;
  lastIndexedAt: string | null;
  /** Secret redaction in what the MCP server and the UI return: null follows the Settings switch. */
  redactSecrets: boolean | null;
  /** Languages OCR reads its scans in (Tesseract codes); ['eng'] unless chosen. */
  ocrLanguages: string[];
}

/** A file that was not indexed, or indexed only in part ('partial': rows cut, a chapter missing, needs OCR), and why. */
export interface FileProblem {
  path: string;
  status: 'skipped' | 'failed' | 'partial';
  reason: string;
}
