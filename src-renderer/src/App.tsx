// The shell: navigation, the sign-in notice for the web, and the live event subscription that
// keeps collections and index activity current on every screen.
import { useEffect } from 'react';
import { trove } from './bridge';
import { CollectionsScreen } from './screens/CollectionsScreen';
import { ConnectScreen } from './screens/ConnectScreen';
import { MemoryScreen } from './screens/MemoryScreen';
import { SearchScreen } from './screens/SearchScreen';
import { SettingsScreen } from './screens/SettingsScreen';
import { StatusScreen } from './screens/StatusScreen';
import { screens, useApp } from './store';

export function App() {
  const { screen, setScreen, signedOut, loadError, refresh, onEvent } = useApp();

  useEffect(() => {
    const off = trove.onEvent(onEvent);
    void refresh();
    return off;
  }, [refresh, onEvent]);

  useEffect(() => {
    // keyboard-first: Ctrl/Cmd+K or "/" jumps to the search box from anywhere
    const onKey = (e: KeyboardEvent) => {
      const typing = e.target instanceof HTMLElement && /^(INPUT|TEXTAREA|SELECT)$/.test(e.target.tagName);
      if (((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 'k') || (e.key === '/' && !typing)) {
        e.preventDefault();
        setScreen('search');
        requestAnimationFrame(() => document.getElementById('search-query')?.focus());
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setScreen]);

  if (signedOut) {
    return (
      <main className="signin">
        <h1>Trove</h1>
        <p role="alert">
          This browser is not signed in. Open the sign-in link that <code>trove serve --ui</code> printed (also saved as <code>uiUrl</code> in
          the profile's runtime.json); each link works once.
        </p>
      </main>
    );
  }

  return (
    <div className="shell">
      <nav aria-label="Screens">
        <div className="brand">Trove</div>
        {screens.map((s) => (
          <button key={s.id} className={s.id === screen ? 'active' : ''} aria-current={s.id === screen ? 'page' : undefined} onClick={() => setScreen(s.id)}>
            {s.label}
          </button>
        ))}
        <div className="platform">{trove.platform === 'electron' ? 'Desktop app' : 'Web UI'} · Ctrl+K to search</div>
      </nav>
      <main>
        {loadError && (
          <p className="error" role="alert">
            {loadError}
          </p>
        )}
        {screen === 'collections' && <CollectionsScreen />}
        {screen === 'status' && <StatusScreen />}
        {screen === 'search' && <SearchScreen />}
        {screen === 'memory' && <MemoryScreen />}
        {screen === 'connect' && <ConnectScreen />}
        {screen === 'settings' && <SettingsScreen />}
      </main>
    </div>
  );
}
