// Chinese, Japanese and Korean have no spaces between words, so unicode61 would make a whole
// sentence one token. Both the index and queries turn each CJK run into overlapping character
// bigrams ("全文检索" → "全文 文检 检索"), which BM25 then ranks like words.
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u30fc\uff66-\uff9f]+/gu;
const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
/** Every CJK character (Hangul Jamo U+1100 is the lowest, astral Han comes as surrogates) is in here: a test ~10x cheaper than the script classes. */
const MAYBE_CJK = /[\u1100-\uffff]/;

export function hasCjk(text: string): boolean {
  return MAYBE_CJK.test(text) && HAS_CJK.test(text);
}

export function bigrams(run: string): string[] {
  const chars = Array.from(run);
  if (chars.length < 2) return chars;
  const out: string[] = [];
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i]! + chars[i + 1]!);
  return out;
}

/** The form of a text stored in the FTS index: unchanged unless it contains CJK. */
export function toIndexText(text: string): string {
  if (!hasCjk(text)) return text;
  return text.replace(CJK_RUN, (run) => ` ${bigrams(run).join(' ')} `);
}

/** Splits a CJK run found in a query the same way. */
export function isCjkRun(token: string): boolean {
  CJK_RUN.lastIndex = 0;
  const m = CJK_RUN.exec(token);
  return !!m && m[0].length === token.length;
}
