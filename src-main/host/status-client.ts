// The status of the host serving a profile, asked over loopback HTTP (GET /status with the token
// from runtime.json): `trove status` shows the live picture when a host runs — indexing and
// embedding progress with rate and ETA live only in that process — and the index alone when none does.
import type { StatusReport } from '../engine/index.js';
import { findRunningHost } from './discovery.js';

export async function runningHostStatus(profileDir: string): Promise<{ report: StatusReport; pid: number } | null> {
  const host = await findRunningHost(profileDir);
  if (!host) return null;
  try {
    const res = await fetch(`http://127.0.0.1:${host.port}/status`, {
      headers: { Authorization: `Bearer ${host.token}` },
      signal: AbortSignal.timeout(5000),
    });
    if (!res.ok) {
      await res.body?.cancel();
      return null;
    }
    return { report: (await res.json()) as StatusReport, pid: host.pid };
  } catch {
    return null; // gone meanwhile, or an older host without /status: read the index instead
  }
}
