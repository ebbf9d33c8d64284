// @huggingface/tokenizers' Unigram model finds the vocabulary pieces that start at a position with a
// character trie whose every node is an object holding its own Map. For multilingual-e5-small's
// 250,002 pieces that trie is ~123 MB of JS heap — three quarters of the tokenizer — in every model
// worker. PieceTrie is the same trie in five typed arrays (~10 MB): each node's children are one
// sorted run of code points, found by binary search. It yields the same pieces in the same order,
// so it is swapped in once the tokenizer is built. That reaches into the library's model, so it
// only acts on the shape it knows (a later version without it keeps its own trie), and a test holds
// the encodings equal.

interface PrefixSearch {
  common_prefix_search(chars: readonly string[], start?: number): Iterable<string>;
}

interface UnigramShape {
  trie: PrefixSearch;
  vocab: readonly string[];
  tokens_to_ids: Map<string, number>;
}

/** A vocabulary's pieces as a trie over code points, packed in typed arrays. */
export class PieceTrie implements PrefixSearch {
  /** Node n's children are edges first[n] .. first[n + 1] - 1, sorted by code point. */
  private readonly first: Int32Array;
  private readonly edgeChar: Int32Array;
  private readonly edgeNode: Int32Array;
  /** The piece a node ends, as an index into `pieces`, or -1. */
  private readonly pieceAt: Int32Array;
  /** The vocabulary's pieces in UTF-16 order. */
  private readonly pieces: string[];

  constructor(vocabulary: readonly string[]) {
    // Sorted pieces share their path with the one before (sorted by UTF-16 units: strings with a
    // common prefix stay together in that order too), so a walk down a stack adds each node once;
    // a node's children arrive in order as a first-child / next-sibling list.
    const pieces = (this.pieces = vocabulary.filter((p) => p.length > 0).sort()); // the default sort: UTF-16 order, natively
    const nodeChar = [0];
    const firstChild = [-1];
    const lastChild = [-1];
    const nextSibling = [-1];
    const pieceAt = [-1];
    const path = [0];
    let previous = '';
    for (const [i, piece] of pieces.entries()) {
      let units = 0;
      while (units < piece.length && units < previous.length && piece.charCodeAt(units) === previous.charCodeAt(units)) units++;
      if (units > 0 && units < piece.length && isLowSurrogate(piece.charCodeAt(units))) units--; // never half a character
      let depth = 0;
      for (let u = 0; u < units; u += piece.codePointAt(u)! > 0xffff ? 2 : 1) depth++;
      path.length = depth + 1;
      for (let u = units; u < piece.length; ) {
        const cp = piece.codePointAt(u)!;
        u += cp > 0xffff ? 2 : 1;
        const parent = path[path.length - 1]!;
        const node = nodeChar.length;
        nodeChar.push(cp);
        firstChild.push(-1);
        lastChild.push(-1);
        nextSibling.push(-1);
        pieceAt.push(-1);
        if (lastChild[parent] === -1) firstChild[parent] = node;
        else nextSibling[lastChild[parent]!] = node;
        lastChild[parent] = node;
        path.push(node);
      }
      pieceAt[path[path.length - 1]!] = i;
      previous = piece;
    }
    const nodes = nodeChar.length;
    this.first = new Int32Array(nodes + 1);
    this.edgeChar = new Int32Array(nodes - 1);
    this.edgeNode = new Int32Array(nodes - 1);
    let e = 0;
    for (let n = 0; n < nodes; n++) {
      this.first[n] = e;
      let sorted = true;
      for (let c = firstChild[n]!; c !== -1; c = nextSibling[c]!, e++) {
        this.edgeChar[e] = nodeChar[c]!;
        this.edgeNode[e] = c;
        if (e > this.first[n]! && this.edgeChar[e - 1]! > nodeChar[c]!) sorted = false;
      }
      // UTF-16 order puts U+E000..U+FFFF after the astral characters; the search wants code point order
      if (!sorted) sortRun(this.edgeChar, this.edgeNode, this.first[n]!, e);
    }
    this.first[nodes] = e;
    this.pieceAt = Int32Array.from(pieceAt);
  }

  /** Pieces that are prefixes of `chars` from `start`, shortest first (as the library's trie yields them). */
  *common_prefix_search(chars: readonly string[], start = 0): Generator<string> {
    let node = 0;
    for (let i = start; i < chars.length; i++) {
      node = this.child(node, chars[i]!.codePointAt(0)!);
      if (node < 0) return;
      const piece = this.pieceAt[node]!;
      if (piece >= 0) yield this.pieces[piece]!;
    }
  }

  private child(node: number, cp: number): number {
    let lo = this.first[node]!;
    let hi = this.first[node + 1]! - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const c = this.edgeChar[mid]!;
      if (c === cp) return this.edgeNode[mid]!;
      if (c < cp) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** Sorts edges from..to-1 by code point, their nodes alongside. */
function sortRun(chars: Int32Array, nodes: Int32Array, from: number, to: number): void {
  const run = Array.from({ length: to - from }, (_, k) => [chars[from + k]!, nodes[from + k]!] as const).sort((a, b) => a[0] - b[0]);
  run.forEach(([c, n], k) => {
    chars[from + k] = c;
    nodes[from + k] = n;
  });
}

function isUnigram(model: unknown): model is UnigramShape {
  const m = model as Partial<UnigramShape> | null;
  return !!m && typeof m.trie?.common_prefix_search === 'function' && Array.isArray(m.vocab) && m.tokens_to_ids instanceof Map;
}

/** Replaces a Unigram model's trie by a PieceTrie of its vocabulary; true when it did. */
export function compactUnigram(tokenizer: object): boolean {
  const model = (tokenizer as { model?: unknown }).model;
  if (!isUnigram(model)) return false;
  model.trie = new PieceTrie(model.vocab);
  return true;
}
