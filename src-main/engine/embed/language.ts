// The automatic model choice: the English model for English text, the multilingual one when a
// collection's text is mostly something else (CJK, Cyrillic, or Latin-script languages whose
// common words are not English ones).
/** How much text the choice reads: the first documents of a collection (by id), the start of each. */
export interface LanguageSample {
  documents: number;
  chars: number;
}
export const LANGUAGE_SAMPLE: LanguageSample = { documents: 40, chars: 2000 };

const ENGLISH = new Set('the of and to a in is that for it as with was on be by are this or from at an not have which but'.split(' '));

export function looksEnglish(sample: string): boolean {
  // letters counted as code points (a letter outside the BMP is two UTF-16 units); the only ASCII letters are A–Z and a–z
  const allLetters = sample.replace(/\P{L}+/gu, '');
  const letters = allLetters.length - (allLetters.match(/[\ud800-\udbff]/g)?.length ?? 0);
  const ascii = allLetters.replace(/[^A-Za-z]+/g, '').length;
  if (!letters) return true;
  if (ascii / letters < 0.8) return false;
  const words = sample.toLowerCase().match(/[a-z]+/g) ?? [];
  if (words.length < 20) return true; // too little text to tell: the default
  const common = words.filter((w) => ENGLISH.has(w)).length;
  return common / words.length >= 0.08;
}
