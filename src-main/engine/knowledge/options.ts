// The knowledge toolset's knobs: global defaults and the bounds every value is clamped to,
// wherever it came from (tool input, a session's defaults, a request's base64 config). Out of
// range is clamped, not refused: a client asking for a 10,000-character snippet gets 2,000.
import { invalidInput } from '../errors.js';
import type { KnowledgeOrder } from '../types/knowledge.js';

export const KNOWLEDGE_DEFAULTS = {
  limit: 10,
  snippet_length: 300,
  max_tokens: 5000,
  sibling_window: 1,
  order_by: 'relevance' as KnowledgeOrder,
  chars_per_token: 4,
  /** On-the-fly chunking (an item without chunks of its own, or prefer_prechunked false). */
  chunk_size_tokens: 256,
  chunk_overlap_tokens: 32,
} as const;

/** [min, max] of each numeric knob. */
export const KNOWLEDGE_BOUNDS = {
  limit: [1, 100],
  snippet_length: [50, 2000],
  max_tokens: [16, 100_000],
  sibling_window: [0, 20],
  chars_per_token: [1, 16],
  chunk_size_tokens: [16, 8192],
  chunk_overlap_tokens: [0, 4096],
} as const;

export type KnowledgeNumericKnob = keyof typeof KNOWLEDGE_BOUNDS;

/** Whole numbers except chars_per_token (3.5 characters a token is a fair estimate for some text). */
const FRACTIONAL: ReadonlySet<KnowledgeNumericKnob> = new Set(['chars_per_token']);

/** The value clamped into the knob's bounds; a non-number is a usage error naming the knob. */
export function clampKnob(knob: KnowledgeNumericKnob, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidInput(`${knob} must be a number (got ${String(value)})`);
  const [min, max] = KNOWLEDGE_BOUNDS[knob];
  const v = FRACTIONAL.has(knob) ? value : Math.round(value);
  return Math.min(max, Math.max(min, v));
}

/** A knob's value if given (clamped), else its default. */
export function knob(knobName: KnowledgeNumericKnob, value: number | undefined): number {
  return value === undefined ? (KNOWLEDGE_DEFAULTS[knobName] as number) : clampKnob(knobName, value);
}

/** The largest number of characters whose estimate, ceil(chars / charsPerToken), stays within maxTokens. */
export function budgetChars(maxTokens: number, charsPerToken: number): number {
  let chars = Math.floor(maxTokens * charsPerToken + 1e-6);
  while (chars > 0 && estimateTokens(chars, charsPerToken) > maxTokens) chars--; // float rounding (3.3 × 2000): never over
  return chars;
}

/** The spec's estimate: ceil(characters / chars_per_token). */
export function estimateTokens(chars: number, charsPerToken: number): number {
  return Math.ceil(chars / charsPerToken);
}
