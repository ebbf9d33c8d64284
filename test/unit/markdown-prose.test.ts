// What the embedding model reads of a Markdown chunk: the words a reader of the rendered page
// sees, without the markup (text/markdown-prose.ts).
import { describe, expect, it } from 'vitest';
import { markdownProse } from '../../src-main/engine/text/markdown-prose.js';

describe('markdownProse', () => {
  it('keeps a link’s text and an image’s alt text, not their targets', () => {
    expect(markdownProse('See [the C++ reference](../cpp/cpp-language-reference.md) and ![a diagram](media/flow.png "Flow").')).toBe('See the C++ reference and a diagram.');
    expect(markdownProse('[MSDN](https://msdn.microsoft.com/library/ms123(v=vs.100).aspx) page')).toBe('MSDN page');
    expect(markdownProse('[spaced](<my page.md>) and [ref text][ref] and [empty][]')).toBe('spaced and ref text and empty');
  });

  it('drops link reference definitions, fences, comments and table delimiters, keeping the lines between', () => {
    const md = ['Intro.', '', '[ref]: https://example.com/page "Title"', '<!-- editor note -->', '```cpp', 'int main() { return 0; }', '```', '---', 'End.'].join('\n');
    expect(markdownProse(md)).toBe(['Intro.', '', 'int main() { return 0; }', 'End.'].join('\n'));
  });

  it('keeps inline code and emphasised words without their marks', () => {
    expect(markdownProse('Call `std::sort` with **two** iterators, ``a ` b``.')).toBe('Call std::sort with two iterators, a ` b.');
  });

  it('reads a table’s rows as their cells', () => {
    const md = '| Option | Meaning |\n|--|:-:|\n| `/O2` | Maximize speed |\n| `/Od` | No optimization \\| debug |';
    expect(markdownProse(md)).toBe('Option  Meaning\n/O2  Maximize speed\n/Od  No optimization \\| debug');
  });

  it('drops heading, quote and bullet marks, and names an alert by its word', () => {
    expect(markdownProse('## Remarks\n\n> [!NOTE]\n> Only on x64.\n\n- first\n* second\n+ third\n1. numbered')).toBe('Remarks\n\nNOTE\nOnly on x64.\n\nfirst\nsecond\nthird\n1. numbered');
  });

  it('drops the HTML tags pages are written with, keeping what they enclose', () => {
    expect(markdownProse('<a name="setup"></a> CMFCFontComboBox::Setup\n\n*nFontType*<br/>\n[in] The font <sup>1</sup>.').replace(/ +/g, ' ')).toBe('CMFCFontComboBox::Setup\n\n*nFontType* \n[in] The font 1 .');
  });

  it('leaves code and prose that only look like markup alone', () => {
    expect(markdownProse('#include <iostream>\nstd::vector<int> v; template <class T> T max(T a, T b);')).toBe('#include <iostream>\nstd::vector<int> v; template <class T> T max(T a, T b);');
    expect(markdownProse('int main(int argc, char** argv) { return a || b | c; }')).toBe('int main(int argc, char** argv) { return a || b | c; }');
    expect(markdownProse('2 * 3 - 1, where [i] is an index and a[0] its first')).toBe('2 * 3 - 1, where [i] is an index and a[0] its first');
    expect(markdownProse('__declspec(dllexport) __cdecl f();')).toBe('__declspec(dllexport) __cdecl f();');
  });

  it('gives plain text back as it was, and a chunk of nothing but markup as empty', () => {
    expect(markdownProse('A sentence.\nAnother one.')).toBe('A sentence.\nAnother one.');
    expect(markdownProse('```\n```\n[a]: https://x.y')).toBe('');
  });
});
