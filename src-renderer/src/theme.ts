// Light or dark: follows the operating system unless the person picks one; the choice is kept
// in this window's localStorage (per profile in Electron, per browser on the web UI).
export const themeChoices = ['system', 'light', 'dark'] as const;
export type ThemeChoice = (typeof themeChoices)[number];

const KEY = 'trove.theme';

export function savedTheme(): ThemeChoice {
  const v = localStorage.getItem(KEY);
  return themeChoices.includes(v as ThemeChoice) ? (v as ThemeChoice) : 'system';
}

/** Sets `data-theme` on <html> (absent: the OS decides through prefers-color-scheme) and remembers it. */
export function applyTheme(choice: ThemeChoice): void {
  if (choice === 'system') delete document.documentElement.dataset.theme;
  else document.documentElement.dataset.theme = choice;
  localStorage.setItem(KEY, choice);
}
