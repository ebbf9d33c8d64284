// Turns what a person typed into a safe FTS5 MATCH expression. Every term reaches FTS5 quoted,
// so no input — quotes, parentheses, `*`, `-`, NEAR, AND/OR — can raise an FTS5 syntax error.
// Syntaxes: match (words, ranked, partial matches allowed), phrase, prefix, boolean.
// Phrase and boolean queries also come out as an expression tree (store/storage.ts's
// KeywordExpression), which the storage backends render themselves (PostgreSQL: a tsquery).
import { invalidInput } from '../errors.js';
import type { KeywordExpression, KeywordTerm } from '../store/storage.js';
import { indexTerm, quote, STOPWORDS, tokenize, type Token } from '../text/terms.js';

export type QuerySyntax = 'match' | 'phrase' | 'prefix' | 'boolean';

export interface QueryTerm {
  token: Token;
  prefix: boolean;
}

/** What lexical search plans over: terms to rank by (match/prefix) or a fixed expression (phrase/boolean). */
export type ParsedQuery =
  | { kind: 'terms'; terms: QueryTerm[]; highlight: QueryTerm[] }
  | {
      kind: 'expression';
      expression: string;
      /** The same expression as a tree, for the storage backends. */
      tree: KeywordExpression;
      highlight: QueryTerm[];
      /** documents matching this anywhere are dropped */
      exclude?: string;
      excludeTree?: KeywordExpression;
    };

export function parseQuery(text: string, syntax: QuerySyntax): ParsedQuery {
  switch (syntax) {
    case 'match':
    case 'prefix': {
      const tokens = tokenize(text);
      const content = tokens.filter((t) => t.cjk || !STOPWORDS.has(t.text));
      const chosen = dedupe(content.length ? content : tokens);
      if (!chosen.length) throw invalidInput('the query has no searchable words');
      // CJK bigrams are already fragments; prefix applies to words only (and to lone CJK characters)
      const terms = chosen.map((token) => ({ token, prefix: (syntax === 'prefix' && !token.cjk) || loneCjk(token) }));
      return { kind: 'terms', terms, highlight: terms };
    }
    case 'phrase': {
      const tokens = tokenize(text);
      if (!tokens.length) throw invalidInput('the phrase has no searchable words');
      const star = tokens.length === 1 && loneCjk(tokens[0]!);
      const expression = star ? `${phrase(tokens)}*` : phrase(tokens);
      // a lone CJK character is its bigrams' prefix here too: PostgreSQL ranks a phrase by these terms' postings
      return { kind: 'expression', expression, tree: phraseTree(tokens, star), highlight: tokens.map((token) => ({ token, prefix: star })) };
    }
    case 'boolean':
      return parseBoolean(text);
  }
}

/**
 * A CJK character standing alone in the query ("傘"): the index holds it only inside bigrams
 * ("傘を"), so it is searched as their prefix. (At the very end of a run it is only the second
 * half of a bigram and stays unfindable alone.)
 */
function loneCjk(token: Token): boolean {
  return token.cjk && Array.from(token.text).length === 1;
}

function dedupe(tokens: Token[]): Token[] {
  const seen = new Set<string>();
  return tokens.filter((t) => (seen.has(t.text) ? false : (seen.add(t.text), true)));
}

function phrase(tokens: Token[]): string {
  return quote(tokens.map((t) => t.text).join(' '));
}

/** A query term as the index holds it: stemmed (a CJK bigram as it is), a prefix as typed. */
export function keywordTerm(t: QueryTerm): KeywordTerm {
  return { text: t.token.text, term: t.prefix ? t.token.text : indexTerm(t.token), prefix: t.prefix };
}

/** Words in this order; `prefixLast`: the last one as a prefix (FTS5's `"a b"*`). */
function phraseTree(tokens: readonly Token[], prefixLast: boolean): KeywordExpression {
  const terms = tokens.map((token, i) => keywordTerm({ token, prefix: prefixLast && i === tokens.length - 1 }));
  return terms.length === 1 ? { t: 'term', term: terms[0]! } : { t: 'phrase', terms };
}

export function termExpression(t: QueryTerm): string {
  return t.prefix ? `${quote(t.token.text)}*` : quote(t.token.text);
}

// ---- boolean syntax -------------------------------------------------------------------------
// Grammar (case-sensitive operators, as in most search boxes):
//   or   := and ("OR" and)*
//   and  := unary (["AND"] unary)*          adjacent terms are ANDed
//   unary:= ("NOT" | "-") atom | atom
//   atom := "(" or ")" | '"' phrase '"' | word["*"]
// Unbalanced parentheses and quotes are closed for the user; a query with only negations is refused.

type Node =
  | { t: 'term'; expr: string; terms: QueryTerm[]; tree: KeywordExpression }
  | { t: 'and'; pos: Node[]; neg: Node[] }
  | { t: 'or'; items: Node[] };

type Lexeme = { k: 'word'; v: string; star: boolean } | { k: 'phrase'; v: string } | { k: 'op'; v: 'AND' | 'OR' | 'NOT' | '(' | ')' | '-' };

function lex(text: string): Lexeme[] {
  const out: Lexeme[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) i++;
    else if (c === '(' || c === ')') (out.push({ k: 'op', v: c }), i++);
    else if (c === '"') {
      const end = text.indexOf('"', i + 1);
      out.push({ k: 'phrase', v: text.slice(i + 1, end < 0 ? text.length : end) });
      i = end < 0 ? text.length : end + 1;
    } else if (c === '-' && (i === 0 || /[\s(]/.test(text[i - 1]!)) && i + 1 < text.length && !/\s/.test(text[i + 1]!)) {
      out.push({ k: 'op', v: '-' });
      i++;
    } else {
      let j = i;
      while (j < text.length && !/[\s()"]/.test(text[j]!)) j++;
      const raw = text.slice(i, j);
      i = j;
      if (raw === 'AND' || raw === 'OR' || raw === 'NOT') out.push({ k: 'op', v: raw });
      else if (raw === '&&') out.push({ k: 'op', v: 'AND' });
      else if (raw === '||') out.push({ k: 'op', v: 'OR' });
      else out.push({ k: 'word', v: raw.replace(/\*+$/, ''), star: raw.endsWith('*') });
    }
  }
  return out;
}

function parseBoolean(text: string): ParsedQuery {
  const lexemes = lex(text);
  let pos = 0;
  let depth = 0;
  const peek = () => lexemes[pos];
  const isOp = (v: string) => peek()?.k === 'op' && peek()!.v === v;

  const atom = (): Node | null => {
    const l = lexemes[pos++];
    if (!l) return null;
    if (l.k === 'op' && l.v === '(') {
      depth++;
      const inner = or();
      if (isOp(')')) pos++;
      depth--;
      return inner;
    }
    if (l.k === 'op') return null; // stray operator: ignored
    const tokens = tokenize(l.v);
    if (!tokens.length) return null;
    if (tokens.length > 1) {
      // "a-b", a phrase in quotes, or a CJK run: all mean "these words in this order"
      const terms = tokens.map((token) => ({ token, prefix: false }));
      const star = l.k === 'word' && l.star;
      const expr = star ? `${phrase(tokens)}*` : phrase(tokens);
      return { t: 'term', expr, terms, tree: phraseTree(tokens, star) };
    }
    // one word, quoted or not, is a term
    const term = { token: tokens[0]!, prefix: (l.k === 'word' && l.star) || loneCjk(tokens[0]!) };
    return { t: 'term', expr: termExpression(term), terms: [term], tree: { t: 'term', term: keywordTerm(term) } };
  };
  const unary = (): { node: Node | null; negated: boolean } => {
    if (isOp('NOT') || isOp('-')) {
      pos++;
      return { node: atom(), negated: true };
    }
    return { node: atom(), negated: false };
  };
  const and = (): Node | null => {
    const group: { t: 'and'; pos: Node[]; neg: Node[] } = { t: 'and', pos: [], neg: [] };
    while (pos < lexemes.length && !isOp('OR') && !isOp(')')) {
      if (isOp('AND')) {
        pos++;
        continue;
      }
      const { node, negated } = unary();
      if (node) (negated ? group.neg : group.pos).push(node);
    }
    if (!group.pos.length && !group.neg.length) return null;
    return group.pos.length === 1 && !group.neg.length ? group.pos[0]! : group;
  };
  function or(): Node | null {
    const items: Node[] = [];
    for (;;) {
      const n = and();
      if (n) items.push(n);
      if (isOp('OR')) pos++;
      else if (isOp(')') && depth === 0) pos++; // unmatched ')' at top level: skip it
      else break;
    }
    if (!items.length) return null;
    return items.length === 1 ? items[0]! : { t: 'or', items };
  }
  let root: Node | null = null;
  while (pos < lexemes.length) {
    const n = or();
    if (n) root = root ? { t: 'and', pos: [root, n], neg: [] } : n;
    else pos++;
  }
  if (!root) throw invalidInput('the query has no searchable words');
  const highlight: QueryTerm[] = [];
  const expression = render(root, highlight);
  // Top-level negations hold for the whole document, not just the matching chunk: `retry -backoff`
  // must not return a page that mentions backoff in another section.
  const negated = root.t === 'and' && root.neg.length ? root.neg : null;
  const exclude = negated?.map((n) => render(n, [])).join(' OR ');
  const excludeTree: KeywordExpression | undefined = negated ? (negated.length === 1 ? treeOf(negated[0]!) : { t: 'or', items: negated.map(treeOf) }) : undefined;
  return { kind: 'expression', expression, tree: treeOf(root), highlight, exclude, excludeTree };
}

/** The node as the storage interface's expression tree (render() has refused a group of negations only). */
function treeOf(node: Node): KeywordExpression {
  if (node.t === 'term') return node.tree;
  if (node.t === 'or') return { t: 'or', items: node.items.map(treeOf) };
  return node.neg.length ? { t: 'and', items: node.pos.map(treeOf), not: node.neg.map(treeOf) } : { t: 'and', items: node.pos.map(treeOf) };
}

function render(node: Node, highlight: QueryTerm[]): string {
  if (node.t === 'term') {
    highlight.push(...node.terms);
    return node.expr;
  }
  if (node.t === 'or') return `(${node.items.map((n) => render(n, highlight)).join(' OR ')})`;
  if (!node.pos.length) throw invalidInput('a query needs at least one term that is not negated (NOT x alone matches everything)');
  const positive = node.pos.map((n) => render(n, highlight)).join(' AND ');
  if (!node.neg.length) return `(${positive})`;
  const negative = node.neg.map((n) => render(n, [])).join(' OR ');
  return `((${positive}) NOT (${negative}))`;
}
