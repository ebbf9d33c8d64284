// Ready-to-copy client configs for the Connect screen. Claude Desktop spawns the stdio shim
// (`trove mcp`), which finds the running host by itself; Cursor and VS Code talk HTTP to the
// endpoint with the bearer token.
import os from 'node:os';
import path from 'node:path';
import type { ConnectClient, ConnectInfo } from '../api/results.js';

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
        file: clientConfigPath('Claude Desktop', platform),
        json: pretty({ mcpServers: { trove: { command: 'trove', args: ['mcp'] } } }),
        note: 'Claude Desktop starts `trove mcp`, which connects to this running engine (or starts one).',
      },
      {
        client: 'Cursor',
        file: clientConfigPath('Cursor', platform),
        json: http ? pretty({ mcpServers: { trove: http } }) : '',
        note: http ? 'Cursor connects over HTTP to the local endpoint.' : pending,
      },
      {
        client: 'VS Code',
        file: clientConfigPath('VS Code', platform),
        json: http ? pretty({ servers: { trove: { type: 'http', ...http } } }) : '',
        note: http ? 'VS Code connects over HTTP to the local endpoint (user-level mcp.json; a workspace can use .vscode/mcp.json).' : pending,
      },
    ],
  };
}

/** Each client's user-level config file, from the home folder (and %APPDATA% on Windows). */
export function clientConfigPath(client: ConnectClient, platform: NodeJS.Platform = process.platform): string {
  const home = os.homedir();
  if (client === 'Cursor') return path.join(home, '.cursor', 'mcp.json');
  const [dir, file] = client === 'Claude Desktop' ? ['Claude', 'claude_desktop_config.json'] : [path.join('Code', 'User'), 'mcp.json'];
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', dir, file);
  if (platform === 'win32') return path.join(process.env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), dir, file);
  return path.join(home, '.config', dir, file);
}

function pretty(v: unknown): string {
  return JSON.stringify(v, null, 2);
}
