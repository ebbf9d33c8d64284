// Snippets as the knowledge tools give them: plain text, whitespace collapsed, at most
// snippet_length characters (the spec's shape), cut from the engine's line-numbered snippet.

const LINE_NUMBER = /^\d+: /gm;

export function plainSnippet(numbered: string, maxChars: number): string | null {
  const text = numbered.replace(LINE_NUMBER, '').replace(/\s+/g, ' ').trim();
  if (!text) return null;
  return clip(text, maxChars);
}

/** At most maxChars characters, cut after a word where one ends near the limit. */
export function clip(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = maxChars;
  const space = text.lastIndexOf(' ', maxChars);
  if (space > maxChars - 20 && space > 0) end = space;
  const c = text.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--; // never half a surrogate pair
  return text.slice(0, end).trimEnd();
}
