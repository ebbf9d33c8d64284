// Waiting for a host that works in the background: ask again every 200 ms until the answer is what
// the test waits for, or fail after `ms` with the last answer (never a fixed sleep).
export async function until<T>(ask: () => Promise<T>, done: (v: T) => boolean, ms = 90_000, what = 'the awaited answer'): Promise<T> {
  const deadline = Date.now() + ms;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await ask();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${what}: not reached in ${ms} ms; last answer: ${JSON.stringify(last)}`);
}
