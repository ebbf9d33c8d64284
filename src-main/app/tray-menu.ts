// The tray: Trove keeps serving MCP while its window is closed, so the tray says whether the
// engine is up and offers open / restart / quit. Built as plain data from the supervisor's
// status so it is tested without Electron; main.ts turns it into a native Menu.
import type { SupervisorStatus } from './host-supervisor.js';

export interface TrayItem {
  label: string;
  enabled: boolean;
  type?: 'normal' | 'separator' | 'checkbox';
  checked?: boolean;
  action?: 'open' | 'toggle-pause' | 'restart-engine' | 'toggle-open-at-login' | 'quit';
}

export function trayStatusLine(s: SupervisorStatus): string {
  switch (s.state) {
    case 'ready':
      return s.endpoint ? `Engine running · MCP at ${s.endpoint}` : 'Engine running';
    case 'starting':
      return 'Engine starting…';
    case 'restarting': {
      const why = s.lastExitCode !== null ? ` (exited with code ${s.lastExitCode})` : '';
      return `Engine restarting${why}`;
    }
    case 'failed':
      return `Engine stopped: ${s.message ?? 'it kept crashing'}`;
    case 'stopped':
      return 'Engine stopped';
  }
}

export function trayMenu(s: SupervisorStatus, openAtLogin: boolean, indexingPaused: boolean): TrayItem[] {
  return [
    { label: trayStatusLine(s), enabled: false },
    { label: '', enabled: false, type: 'separator' },
    { label: 'Open Trove', enabled: true, action: 'open' },
    // background indexing of every collection; changes keep being queued while paused
    { label: indexingPaused ? 'Resume indexing' : 'Pause indexing', enabled: s.state === 'ready', action: 'toggle-pause' },
    { label: 'Restart engine', enabled: s.state === 'failed' || s.state === 'ready', action: 'restart-engine' },
    { label: 'Open at login', enabled: true, type: 'checkbox', checked: openAtLogin, action: 'toggle-open-at-login' },
    { label: '', enabled: false, type: 'separator' },
    { label: 'Quit Trove', enabled: true, action: 'quit' },
  ];
}
