// The retry policy's arithmetic (indexing/retry.ts): each failed attempt waits the base delay times
// the factor per attempt before it, capped, and the last attempt gives up (no next time).
import { expect, test } from 'vitest';
import { DEFAULT_RETRY, nextAttemptAt } from '../../src-main/engine/indexing/retry.js';

test('backoff grows by the factor, is capped, and gives up after the last attempt', () => {
  const at = (n: number) => nextAttemptAt(DEFAULT_RETRY, n, 0);
  expect([1, 2, 3, 4, 5].map(at)).toEqual([5_000, 20_000, 80_000, 320_000, 1_280_000]);
  expect(nextAttemptAt({ ...DEFAULT_RETRY, maxAttempts: 10 }, 9, 0)).toBe(DEFAULT_RETRY.maxDelayMs);
  expect(at(6)).toBeNull();
  expect(nextAttemptAt(DEFAULT_RETRY, 1, 1_000)).toBe(6_000); // counted from the failure
});
