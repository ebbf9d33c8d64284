// Collections: add a folder, and every collection with its state, counts and failures; then the
// registered datasets with their states and errors.
import { useEffect } from 'react';
import { AddCollectionForm } from '../components/AddCollectionForm';
import { CollectionCard } from '../components/CollectionCard';
import { DatasetsSection } from '../components/DatasetsSection';
import { useApp } from '../store';

export function CollectionsScreen() {
  const { collections, activity, status, embedding, refresh, refreshStatus } = useApp();
  // failures with reasons come from status; refetch whenever the collections change
  useEffect(() => {
    void refreshStatus();
  }, [collections, refreshStatus]);

  return (
    <section aria-labelledby="collections-title">
      <h1 id="collections-title">Collections</h1>
      <AddCollectionForm onAdded={() => void refresh()} />
      {collections === null ? (
        <p className="muted">Loading collections…</p>
      ) : collections.length === 0 ? (
        <p className="muted" data-testid="no-collections">
          No collections yet. Add a folder above to start.
        </p>
      ) : (
        collections.map((c) => (
          <CollectionCard
            key={c.name}
            c={c}
            activity={activity}
            problems={status?.collections.find((s) => s.name === c.name)?.problems ?? []}
            paused={status?.indexing ? (status.indexing.paused || !!status.indexing.collections.find((a) => a.collection === c.name)?.paused) : null}
            vectors={status?.embeddings?.collections.find((e) => e.collection === c.name) ?? null}
            ocr={status?.ocr?.collections.find((o) => o.collection === c.name) ?? null}
            embedProgress={embedding.progress[c.name] ?? null}
          />
        ))
      )}
      <DatasetsSection />
    </section>
  );
}
