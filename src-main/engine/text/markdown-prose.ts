// What a Markdown chunk says, without the syntax that only shapes how it looks: the text a
// reader of the rendered page sees. The embedding model reads this (embed/embedding-stage.ts);
// markup is not what it was trained on, and every mark costs the model a token: a link's target,
// `**`, a backtick, a table's pipes, a heading's or a list's marker, an HTML tag. In cpp-docs they
// were a fifth of the model's input (bench/RESULTS.md, "… Markdown read as prose …"). Keyword
// search and `get` keep the source text; this is only the model's input.

/** `[text](target "title")` and `![alt](target)`: the text; a target may hold one level of parentheses. */
const INLINE_LINK = /!?\[([^\]\n]*)\]\((?:<[^>\n]*>|(?:[^()\s]|\([^()\s]*\))*)(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/g;
/** `[text][ref]` (and `[text][]`): the text. */
const REFERENCE_LINK = /\[([^\]\n]+)\]\[[^\]\n]*\]/g;
// Lines of nothing but markup go with their line break.
/** A link reference definition, `[ref]: target "title"`: a line of nothing but a target. */
const LINK_DEFINITION = /^ {0,3}\[[^\]\n]+\]:\s+\S+(?:\s+(?:"[^"\n]*"|'[^'\n]*'|\([^)\n]*\)))?[ \t]*$\n?/gm;
/** A code fence's line (its info string too): the code inside stays. */
const FENCE = /^ {0,3}(?:`{3,}|~{3,})[^\n]*$\n?/gm;
/** Inline code on one line, between backtick runs of one length: its content. */
const INLINE_CODE = /(`+)(?!`)(.+?)(?<!`)\1(?!`)/g;
/** Strong emphasis on one line, `**word**`: the words (a lone `**`, as in `char** argv`, stays). */
const STRONG = /\*\*(?=\S)([^\n]*?\S)\*\*/g;
/** A table's delimiter row, `|---|:-:|`. */
const TABLE_DELIMITER = /^[ \t]*\|?(?:[ \t]*:?-+:?[ \t]*\|)+(?:[ \t]*:?-+:?[ \t]*)?$\n?/gm;
/** A thematic break, `---` or `***`. */
const THEMATIC_BREAK = /^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$\n?/gm;
/** A table row: a line that starts and ends with a pipe. */
const TABLE_ROW = /^[ \t]*\|(.*)\|[ \t]*$/gm;
/** A heading's `#`s, a block quote's `>`, a bullet: the line's text stays. */
const LINE_MARKERS = /^[ \t]*(?:#{1,6}[ \t]+|(?:>[ \t]?)+|[-*+][ \t]+)/gm;
/** A GitHub-style alert, `[!NOTE]`: its word. */
const ALERT = /\[!(\w+)\]/g;
const HTML_COMMENT = /<!--[\s\S]*?-->/g;
/**
 * An HTML tag of the kinds pages are written with (`<a name="x"></a>`, `<br/>`, `<sup>`): its
 * content stays. Only these names, so C++'s `<iostream>` or `vector<T>` is left alone.
 */
const HTML_TAG = /<\/?(?:a|br|sup|sub|code|kbd|em|strong|span|div|ul|ol|li|table|tr|td|th|img|hr|dl|dt|dd|pre)(?:\s[^<>\n]*)?\/?>/g;

export function markdownProse(text: string): string {
  return text
    .replace(HTML_COMMENT, '')
    .replace(HTML_TAG, ' ')
    .replace(FENCE, '')
    .replace(LINK_DEFINITION, '')
    .replace(INLINE_LINK, '$1')
    .replace(REFERENCE_LINK, '$1')
    .replace(INLINE_CODE, '$2')
    .replace(STRONG, '$1')
    .replace(TABLE_DELIMITER, '')
    .replace(THEMATIC_BREAK, '')
    .replace(TABLE_ROW, (_, cells: string) => cells.replace(/[ \t]*(?<!\\)\|[ \t]*/g, '  ').trim())
    .replace(LINE_MARKERS, '')
    .replace(ALERT, '$1')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
