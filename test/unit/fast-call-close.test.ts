// Once the MCP endpoint closes, the fast tools/call path answers nothing itself: every call goes to
// the SDK's path, which refuses it as closed (transports/fast-call.ts close()).
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { FastToolCalls } from '../../src-main/mcp/transports/fast-call.js';

describe('the fast tools/call path after close', () => {
  it('leaves every call to the SDK path without building a context or touching the response', async () => {
    let contexts = 0;
    const fast = new FastToolCalls(() => {
      contexts++;
      throw new Error('a closed endpoint must not build a caller context');
    });
    fast.close();
    const res = {} as ServerResponse; // any use of it would throw
    expect(await fast.answer(res, { id: 1, name: 'status', args: {}, envelope: {} }, { token: 't', clientId: 'c', scopes: [] })).toBe(false);
    expect(contexts).toBe(0);
    expect(fast.answered).toBe(0);
  });
});
