// The browser the UI tests drive: TROVE_CHROMIUM, else a system Chromium or Chrome on PATH (or at
// the usual places), else the one Playwright manages for the installed playwright-core. When there
// is none, the error says how to get one — the tests never skip for want of a browser.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { chromium } from 'playwright-core';

const ON_PATH = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const KNOWN = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/snap/bin/chromium', '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome', '/Applications/Chromium.app/Contents/MacOS/Chromium'];

export const HOW_TO_GET_CHROMIUM =
  'install Chromium (Debian/Ubuntu: `apt-get install chromium`; macOS: `brew install --cask chromium`) or a Playwright-managed one (`npx playwright-core install chromium`), or set TROVE_CHROMIUM to a Chromium or Chrome binary';

/** A Chromium binary, or null. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | null {
  if (env.TROVE_CHROMIUM) return fs.existsSync(env.TROVE_CHROMIUM) ? env.TROVE_CHROMIUM : null;
  for (const name of ON_PATH) {
    try {
      const found = execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
      if (found) return found;
    } catch {
      /* not on PATH */
    }
  }
  const known = KNOWN.find((p) => fs.existsSync(p));
  if (known) return known;
  try {
    const managed = chromium.executablePath();
    return managed && fs.existsSync(managed) ? managed : null;
  } catch {
    return null;
  }
}

/** The browser for the UI tests; throws with how to get one. */
export function chromiumForTests(): string {
  const found = findChromium();
  if (!found) throw new Error(`no Chromium for the browser tests${process.env.TROVE_CHROMIUM ? ` (TROVE_CHROMIUM=${process.env.TROVE_CHROMIUM} does not exist)` : ''}: ${HOW_TO_GET_CHROMIUM}`);
  return found;
}
