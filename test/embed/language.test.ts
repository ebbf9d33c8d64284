// The automatic model choice by a collection's language.
import { describe, expect, it } from 'vitest';
import { looksEnglish } from '../../src-main/engine/embed/language.js';

describe('looksEnglish', () => {
  it.each([
    ['The client retries failed requests three times, and the backoff grows with each attempt that is made.', true],
    ['客户端在请求失败后会自动重试三次，并使用指数退避。长城是中国古代的军事防御工程。', false],
    ['クライアントは失敗したリクエストを三回まで自動的に再送します。', false],
    ['Der Client wiederholt fehlgeschlagene Anfragen dreimal und wartet nach jedem Versuch länger, bis die Verbindung steht und die Antwort kommt.', false],
    ['', true],
    // letters are counted as characters: a letter outside the BMP (two UTF-16 units) is one, so 80 ASCII letters in 100 are English enough
    [`${'the and of to '.repeat(8)}${'𝐀'.repeat(20)}`, true],
    [`${'the and of to '.repeat(8)}${'𝐀'.repeat(21)}`, false],
  ])('%s → %s', (text, english) => {
    expect(looksEnglish(text)).toBe(english);
  });
});
