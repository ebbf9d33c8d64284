// Ready-to-copy client configs for the Connect screen. Claude Desktop spawns the stdio shim
// (`trove mcp`), which finds the running host by itself; Cursor and VS Code talk HTTP to the
// endpoint with the bearer token.
import os from 'node:os';
import path from 'node:path';
import type { ConnectInfo } from '../api/results.js';

export interface ConnectSource {
  /** e.g. http://127.0.0.1:7077/mcp — null when this host serves no HTTP. */
  endpoint: string | null;
  token: string | null;
}

export function connectInfo(src: ConnectSource, platform: NodeJS.Platform = process.platform): ConnectInfo {
  const headers = src.token ? { Authorization: `Bearer ${src.token}` } : undefined;
  const http = src.endpoint ? { url: src.endpoint, ...(headers ? { headers } : {}) } : null;
  const pending = 'the engine host is not serving HTTP, so there is no endpoint to point this client at yet';
  return {
    endpoint: src.endpoint,
    token: src.token,
    configs: [
      {
        client: 'Claude Desktop',
        file: claudeDesktopConfigPath(platform),
        json: pretty({ mcpServers: { trove: { command: 'trove', args: ['mcp'] } } }),
        note: 'Claude Desktop starts `trove mcp`, which connects to this running engine (or starts one).',
      },
      {
        client: 'Cursor',
        file: path.join(os.homedir(), '.cursor', 'mcp.json'),
        json: http ? pretty({ mcpServers: { trove: http } }) : '',
        note: http ? 'Cursor connects over HTTP to the local endpoint.' : pending,
      },
      {
        client: 'VS Code',
        file: '.vscode/mcp.json (in a workspace) or the user mcp.json',
        json: http ? pretty({ servers: { trove: { type: 'http', ...http } } }) : '',
        note: http ? 'VS Code connects over HTTP to the local endpoint.' : pending,
      },
    ],
  };
}

function claudeDesktopConfigPath(platform: NodeJS.Platform): string {
  const home = os.homedir();
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  if (platform === 'win32') return path.join(process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json');
  return path.join(home, '.config', 'Claude', 'claude_desktop_config.json');
}

function pretty(v: unknown): string {
  return JSON.stringify(v, null, 2);
}
