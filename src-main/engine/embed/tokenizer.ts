// Tokenisation for the ONNX models with @huggingface/tokenizers, which loads tokenizer.json
// offline but neither truncates nor pads: both are done here. Truncation keeps the final
// [SEP] / </s>, as the Python tokenizers (and the reference vectors) do.
import fs from 'node:fs';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { TroveError } from '../errors.js';
import { compactUnigram } from './unigram-prefixes.js';

/**
 * The tokenizer in a model folder. tokenizer_config.json is read when there: a source that holds
 * only tokenizer.json (a registry jar) leaves it out where the catalogue marks it optional, for
 * models whose encoding it does not change (a WordPiece tokenizer reads none of its settings).
 */
export function loadTokenizer(dir: string): Tokenizer {
  try {
    const json = JSON.parse(fs.readFileSync(path.join(dir, 'tokenizer.json'), 'utf8')) as object;
    const configFile = path.join(dir, 'tokenizer_config.json');
    const config = fs.existsSync(configFile) ? (JSON.parse(fs.readFileSync(configFile, 'utf8')) as object) : {};
    const tokenizer = new Tokenizer(json, config);
    compactUnigram(tokenizer); // a Unigram vocabulary's trie is most of the tokenizer's memory
    return tokenizer;
  } catch (err) {
    throw new TroveError('UNAVAILABLE', `cannot load the tokenizer in ${dir}: ${(err as Error).message}`);
  }
}

/** The id used for padding: [PAD] (BERT, 0) or <pad> (XLM-R, 1). */
export function padId(tok: Tokenizer): number {
  for (const t of ['[PAD]', '<pad>']) {
    const id = tok.token_to_id(t);
    if (id !== undefined && id !== null) return id;
  }
  return 0;
}

/** One text with its special tokens, cut to maxTokens keeping the closing special token. */
export function encodeSingle(tok: Tokenizer, text: string, maxTokens: number): number[] {
  const ids = tok.encode(text).ids;
  if (ids.length <= maxTokens) return ids;
  const out = ids.slice(0, maxTokens - 1);
  out.push(ids[ids.length - 1]!);
  return out;
}

export interface PairEncoding {
  ids: number[];
  types: number[];
}

/** [CLS] query [SEP] passage [SEP] with token types 0 then 1; the passage is cut first. */
export function encodePair(tok: Tokenizer, query: string, passage: string, maxTokens: number): PairEncoding {
  const cls = tok.token_to_id('[CLS]') ?? 101;
  const sep = tok.token_to_id('[SEP]') ?? 102;
  let q = tok.encode(query, { add_special_tokens: false }).ids;
  let p = tok.encode(passage, { add_special_tokens: false }).ids;
  const budget = maxTokens - 3;
  if (q.length > budget - 1) q = q.slice(0, Math.max(1, Math.floor(budget / 2))); // a pathological query
  if (q.length + p.length > budget) p = p.slice(0, budget - q.length);
  return { ids: [cls, ...q, sep, ...p, sep], types: [...new Array<number>(q.length + 2).fill(0), ...new Array<number>(p.length + 1).fill(1)] };
}
