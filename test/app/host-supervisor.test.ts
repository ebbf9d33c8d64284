// The supervisor with a fake utilityProcess and a manual clock: crash → restart with backoff,
// calls in flight fail clearly, calls made while restarting wait for the next host.
import { describe, expect, it } from 'vitest';
import type { ToHost } from '../../src-main/api/host-protocol.js';
import { HostSupervisor, type Clock, type HostProcess } from '../../src-main/app/host-supervisor.js';

class FakeHost implements HostProcess {
  readonly sent: ToHost[] = [];
  killed = false;
  private messageListeners: ((m: unknown) => void)[] = [];
  private exitListeners: ((code: number) => void)[] = [];
  postMessage(m: ToHost) {
    this.sent.push(m);
  }
  onMessage(l: (m: unknown) => void) {
    this.messageListeners.push(l);
  }
  onExit(l: (code: number) => void) {
    this.exitListeners.push(l);
  }
  kill() {
    this.killed = true;
    this.exit(137);
  }
  emit(m: unknown) {
    for (const l of this.messageListeners) l(m);
  }
  ready() {
    this.emit({ kind: 'ready', endpoint: 'http://127.0.0.1:7077/mcp', uiUrl: null });
  }
  exit(code: number) {
    for (const l of this.exitListeners) l(code);
  }
  calls() {
    return this.sent.filter((m): m is Extract<ToHost, { kind: 'call' }> => m.kind === 'call');
  }
}

class ManualClock implements Clock {
  t = 0;
  private timers: { at: number; fn: () => void; id: number }[] = [];
  private nextId = 1;
  now() {
    return this.t;
  }
  setTimeout(fn: () => void, ms: number) {
    const id = this.nextId++;
    this.timers.push({ at: this.t + ms, fn, id });
    return id;
  }
  clearTimeout(h: unknown) {
    this.timers = this.timers.filter((t) => t.id !== h);
  }
  advance(ms: number) {
    this.t += ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= this.t).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      due.fn();
    }
  }
  pending() {
    return this.timers.map((t) => t.at - this.t);
  }
}

function setup(opts: { maxCrashesInARow?: number } = {}) {
  const clock = new ManualClock();
  const hosts: FakeHost[] = [];
  const logs: string[] = [];
  const sup = new HostSupervisor({
    launch: () => {
      const h = new FakeHost();
      hosts.push(h);
      return h;
    },
    clock,
    initialBackoffMs: 500,
    maxBackoffMs: 4000,
    stableAfterMs: 60_000,
    maxCrashesInARow: opts.maxCrashesInARow ?? 8,
    stopTimeoutMs: 5000,
    log: (l) => logs.push(l),
  });
  return { clock, hosts, sup, logs, current: () => hosts[hosts.length - 1]! };
}

describe('HostSupervisor', () => {
  it('relays a call once the host is ready and resolves it with the reply', async () => {
    const { sup, current } = setup();
    sup.start();
    expect(sup.status().state).toBe('starting');
    const reply = sup.call('collections.list', {});
    expect(current().calls()).toHaveLength(0); // not ready yet: held back
    current().ready();
    expect(sup.status()).toMatchObject({ state: 'ready', endpoint: 'http://127.0.0.1:7077/mcp' });
    const [call] = current().calls();
    expect(call).toMatchObject({ method: 'collections.list', params: {} });
    current().emit({ kind: 'reply', id: call!.id, reply: { ok: true, result: [] } });
    await expect(reply).resolves.toEqual({ ok: true, result: [] });
  });

  it('restarts a crashed host with doubling backoff, and fails calls that died with it', async () => {
    const { sup, hosts, clock, current } = setup();
    sup.start();
    current().ready();
    const inFlight = sup.call('status', {});
    current().exit(1);
    await expect(inFlight).resolves.toMatchObject({ ok: false, error: { code: 'UNAVAILABLE', message: expect.stringContaining('exit code 1') } });
    expect(sup.status()).toMatchObject({ state: 'restarting', restarts: 1, lastExitCode: 1 });
    expect(clock.pending()).toEqual([500]);
    clock.advance(499);
    expect(hosts).toHaveLength(1);
    clock.advance(1);
    expect(hosts).toHaveLength(2);
    // crashes again quickly: the delay doubles, then doubles again, capped at maxBackoffMs
    current().exit(1);
    expect(clock.pending()).toEqual([1000]);
    clock.advance(1000);
    current().exit(1);
    expect(clock.pending()).toEqual([2000]);
    clock.advance(2000);
    current().exit(1);
    clock.advance(4000);
    current().exit(1);
    expect(clock.pending()).toEqual([4000]);
  });

  it('holds calls made while restarting and sends them to the next host', async () => {
    const { sup, clock, current, hosts } = setup();
    sup.start();
    current().ready();
    current().exit(9);
    const waiting = sup.call('index.activity', {});
    clock.advance(500);
    expect(hosts).toHaveLength(2);
    current().ready();
    const [call] = current().calls();
    expect(call?.method).toBe('index.activity');
    current().emit({ kind: 'reply', id: call!.id, reply: { ok: true, result: { running: null, queued: [], recent: [] } } });
    await expect(waiting).resolves.toMatchObject({ ok: true });
  });

  it('starts the backoff over after a host that ran stably', () => {
    const { sup, clock, current } = setup();
    sup.start();
    current().exit(1);
    clock.advance(500);
    current().exit(1);
    expect(clock.pending()).toEqual([1000]);
    clock.advance(1000);
    clock.advance(60_000); // this one ran for a minute
    current().exit(1);
    expect(clock.pending()).toEqual([500]);
  });

  it('gives up after too many crashes in a row, answers calls clearly, and Restart engine recovers', async () => {
    const { sup, clock, current, hosts } = setup({ maxCrashesInARow: 2 });
    sup.start();
    current().emit({ kind: 'fatal', message: 'Trove is already serving this profile' });
    current().exit(1);
    clock.advance(500);
    current().exit(1);
    clock.advance(1000);
    current().exit(1);
    expect(sup.status()).toMatchObject({ state: 'failed', message: 'Trove is already serving this profile' });
    expect(clock.pending()).toEqual([]);
    await expect(sup.call('status', {})).resolves.toMatchObject({ ok: false, error: { code: 'UNAVAILABLE', message: expect.stringContaining('keeps crashing') } });
    sup.restart();
    expect(hosts).toHaveLength(4);
    current().ready();
    expect(sup.status().state).toBe('ready');
  });

  it('Restart engine on a running host kills it and starts a fresh one after the shortest backoff', () => {
    const { sup, clock, current, hosts } = setup();
    sup.start();
    current().ready();
    sup.restart();
    expect(hosts[0]!.killed).toBe(true);
    clock.advance(500);
    expect(hosts).toHaveLength(2);
  });

  it('drops malformed messages from the host without acting on them', async () => {
    const { sup, current, logs } = setup();
    sup.start();
    current().emit({ kind: 'ready' }); // endpoint missing
    current().emit('garbage');
    expect(sup.status().state).toBe('starting');
    expect(logs.filter((l) => l.includes('malformed'))).toHaveLength(2);
  });

  it('forwards host events to listeners', () => {
    const { sup, current } = setup();
    const seen: unknown[] = [];
    sup.onEvent((e) => seen.push(e));
    sup.start();
    current().emit({ kind: 'event', event: { type: 'collections.changed' } });
    expect(seen).toEqual([{ type: 'collections.changed' }]);
  });

  it('stop() asks for a clean shutdown, does not restart, and kills a host that hangs', async () => {
    const { sup, clock, current, hosts } = setup();
    sup.start();
    current().ready();
    const stopped = sup.stop();
    expect(current().sent.at(-1)).toEqual({ kind: 'shutdown' });
    clock.advance(5000); // the host never exits by itself
    await stopped;
    expect(hosts[0]!.killed).toBe(true);
    clock.advance(60_000);
    expect(hosts).toHaveLength(1);
    expect(sup.status().state).toBe('stopped');
    await expect(sup.call('status', {})).resolves.toMatchObject({ ok: false, error: { code: 'UNAVAILABLE' } });
  });
});
