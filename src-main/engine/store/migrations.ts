// Schema history. Each entry upgrades user_version n → n+1; never edit a shipped entry, append.
export const migrations: readonly string[] = [
  /* 1: collections, documents, contents, chunks, keyword index */ `
  CREATE TABLE collections (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    root TEXT NOT NULL,
    include_globs TEXT NOT NULL,      -- JSON array
    exclude_globs TEXT NOT NULL,      -- JSON array
    context TEXT NOT NULL DEFAULT '', -- free-text note shown to assistants
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    last_indexed_at INTEGER
  );
  CREATE TABLE documents (
    id INTEGER PRIMARY KEY,
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    path TEXT NOT NULL,               -- relative to the collection root, '/' separated
    docid TEXT NOT NULL UNIQUE,       -- short stable id shown as #abc123; survives edits and renames
    title TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL DEFAULT 'text',
    size INTEGER NOT NULL,
    mtime_ms INTEGER NOT NULL,
    hash TEXT,                        -- sha256 of the raw bytes; NULL when never read
    indexed_at INTEGER NOT NULL,
    status TEXT NOT NULL,             -- indexed | skipped | failed
    error TEXT,                       -- reason when skipped/failed, or a note (e.g. decoded as windows-1252)
    tags TEXT NOT NULL DEFAULT '[]',  -- JSON array
    metadata TEXT NOT NULL DEFAULT '{}', -- JSON object (front matter etc.)
    UNIQUE (collection_id, path)
  );
  CREATE INDEX documents_hash ON documents(collection_id, hash);
  -- the parsed text of each document: what get/multi_get serve and what chunk ranges point into
  CREATE TABLE contents (
    document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    text TEXT NOT NULL
  );
  CREATE TABLE chunks (
    id INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    ordinal INTEGER NOT NULL,
    char_start INTEGER NOT NULL,
    char_end INTEGER NOT NULL,
    line_start INTEGER NOT NULL,      -- 1-based, inclusive
    line_end INTEGER NOT NULL,
    heading_path TEXT NOT NULL DEFAULT '', -- JSON array of the headings above the chunk
    tokens INTEGER NOT NULL
  );
  CREATE INDEX chunks_document ON chunks(document_id, ordinal);
  -- Contentless: the text lives in contents; the FTS columns hold the tokenised form
  -- (CJK runs expanded into bigrams), so they are never shown to anyone.
  CREATE VIRTUAL TABLE chunks_fts USING fts5(
    title, headings, body,
    tokenize = 'porter unicode61 remove_diacritics 2',
    content = '', contentless_delete = 1
  );
  -- column weights: a word in the title counts 4x, in the heading path 2x, in the body 1x
  INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('rank', 'bm25(4.0, 2.0, 1.0)');
  -- merge segments in larger steps: ~20% faster bulk indexing, same query speed (measured)
  INSERT INTO chunks_fts (chunks_fts, rank) VALUES ('automerge', 8);
  CREATE VIRTUAL TABLE chunks_fts_vocab USING fts5vocab(chunks_fts, 'row');
  -- No delete trigger from chunks to chunks_fts: its mere presence halves FTS5 insert speed
  -- (measured); ChunkStore deletes FTS rows explicitly.
  `,
  /* jobs: the durable work queue of live folders (see store/jobs.ts) */ `
  CREATE TABLE jobs (
    id INTEGER PRIMARY KEY,
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE, -- removing a collection cancels its jobs
    kind TEXT NOT NULL,               -- scan (reconcile the whole folder) | file (bring one path in line)
    path TEXT NOT NULL,               -- relative path for file jobs; '' for scans
    priority INTEGER NOT NULL,        -- higher first: scans, then files the user just changed, then the rest
    changed_at INTEGER NOT NULL,      -- when the change was seen (or the file's mtime): newer first
    gone INTEGER NOT NULL DEFAULT 0,  -- the last event said the path vanished: runs after additions so renames keep docids
    version INTEGER NOT NULL DEFAULT 1, -- bumped by every new event; a job is only retired at the version it ran
    attempts INTEGER NOT NULL DEFAULT 0,
    next_run_at INTEGER,              -- NULL: gave up retrying until the file changes again
    last_error TEXT,
    created_at INTEGER NOT NULL,
    UNIQUE (collection_id, kind, path)
  );
  CREATE INDEX jobs_runnable ON jobs(next_run_at, priority DESC, gone, changed_at DESC);
  CREATE INDEX jobs_collection ON jobs(collection_id, next_run_at);
  -- paused collections; collection_id 0 pauses everything
  CREATE TABLE job_pauses (collection_id INTEGER PRIMARY KEY);
  `,
  /* access tokens for the MCP endpoint, optionally scoped to collections and tools (see store/tokens.ts) */ `
  CREATE TABLE access_tokens (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL UNIQUE COLLATE NOCASE,
    hash TEXT NOT NULL UNIQUE,        -- sha256 (hex) of the secret; the secret is shown once and never stored
    hint TEXT NOT NULL,               -- the secret's first characters, to recognise it in a list
    scoped INTEGER NOT NULL,          -- 1: only the collections in access_token_collections (none left = nothing)
    tools TEXT,                       -- JSON array of tool names; NULL = every tool
    created_at INTEGER NOT NULL,
    last_used_at INTEGER
  );
  -- by id, so renaming a collection keeps its tokens' access and removing it revokes that access
  CREATE TABLE access_token_collections (
    token_id INTEGER NOT NULL REFERENCES access_tokens(id) ON DELETE CASCADE,
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    PRIMARY KEY (token_id, collection_id)
  );
  `,
  /* vector spaces (one per model + weights digest, each with its own vec0 table) and which serves each collection (see store/vectors.ts) */ `
  CREATE TABLE vector_spaces (
    id INTEGER PRIMARY KEY,
    model_id TEXT NOT NULL,
    weights_sha256 TEXT NOT NULL,     -- a different file under the same model id is a different space: re-embed
    dims INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    UNIQUE (model_id, weights_sha256)
  );
  CREATE TABLE collection_vectors (
    collection_id INTEGER PRIMARY KEY REFERENCES collections(id) ON DELETE CASCADE,
    model_choice TEXT,                -- the model the user chose; NULL: automatic (by the collection's language)
    active_space_id INTEGER REFERENCES vector_spaces(id),   -- the space searches use
    building_space_id INTEGER REFERENCES vector_spaces(id)  -- being filled after a model switch; swapped in when complete
  );
  `,
  /* the runner's batch query walks a collection's jobs in run order instead of sorting them all per
     batch (a tenth of a second per 10k files); it serves the per-collection lookups too */ `
  CREATE INDEX jobs_batch ON jobs(collection_id, kind, priority DESC, gone, changed_at DESC, id);
  DROP INDEX jobs_collection;
  `,
  /* collection kinds and one keyword index per kind. Besides the folders a person adds, the engine
     keeps its own collections — a registered dataset's folder of documents, the agent memory store —
     in the same documents, contents, chunks and vector tables. Each kind gets its own FTS5 table,
     identical in shape to chunks_fts, so one corpus's term statistics (BM25's IDF, the planner's
     term counts) never move another's ranking, and a search of one never walks the other's
     postings. Every existing collection is a folder. See store/collections.ts, store/keyword-index.ts. */ `
  ALTER TABLE collections ADD COLUMN kind TEXT NOT NULL DEFAULT 'folder'; -- folder | dataset | memory
  CREATE VIRTUAL TABLE dataset_fts USING fts5(
    title, headings, body,
    tokenize = 'porter unicode61 remove_diacritics 2',
    content = '', contentless_delete = 1
  );
  INSERT INTO dataset_fts (dataset_fts, rank) VALUES ('rank', 'bm25(4.0, 2.0, 1.0)');
  INSERT INTO dataset_fts (dataset_fts, rank) VALUES ('automerge', 8);
  CREATE VIRTUAL TABLE dataset_fts_vocab USING fts5vocab(dataset_fts, 'row');
  CREATE VIRTUAL TABLE memory_fts USING fts5(
    title, headings, body,
    tokenize = 'porter unicode61 remove_diacritics 2',
    content = '', contentless_delete = 1
  );
  INSERT INTO memory_fts (memory_fts, rank) VALUES ('rank', 'bm25(4.0, 2.0, 1.0)');
  INSERT INTO memory_fts (memory_fts, rank) VALUES ('automerge', 8);
  CREATE VIRTUAL TABLE memory_fts_vocab USING fts5vocab(memory_fts, 'row');
  `,
  /* folders a person added to look for dataset manifests in (`trove dataset add`, the Collections
     screen), besides <profile>/datasets; see store/dataset-folders.ts and engine/datasets */ `
  CREATE TABLE dataset_folders (
    path TEXT PRIMARY KEY,            -- absolute
    added_at INTEGER NOT NULL
  );
  -- a FAISS dataset's vectors checked against its model once per (model weights, index file, metadata
  -- file) as they were then, so a command does not start the model just to show a state
  CREATE TABLE dataset_checks (
    key TEXT PRIMARY KEY,
    best_cosine REAL NOT NULL,
    checked_at INTEGER NOT NULL
  );
  `,
  /* documents with pages: each chunk's page (PDF page, slide, sheet, EPUB chapter, mbox message),
     which search hits carry; and the warning of a document indexed only in part (rows cut, a
     chapter missing, a PDF without a text layer that needs OCR), which status lists */ `
  ALTER TABLE chunks ADD COLUMN page INTEGER;   -- 1-based; NULL for formats without pages
  ALTER TABLE documents ADD COLUMN warning TEXT; -- indexed, but not all of it, and why
  -- collections still on the old default include list now read documents too (the next reconcile finds them)
  UPDATE collections SET include_globs = json_insert(include_globs, '$[#]', '**/*.{pdf,docx,docm,dotx,pptx,pptm,ppsx,xlsx,xlsm,odt,odp,ods,epub,rtf,eml,mbox,doc,ppt,xls}')
   WHERE json_valid(include_globs) AND json_array_length(include_globs) = 6
     AND json_extract(include_globs, '$[0]') = '**/*.{md,markdown,mdx,mdown,txt,text,rst,adoc,asciidoc,org,tex,log}'
     AND json_extract(include_globs, '$[1]') = '**/*.{html,htm,xhtml}'
     AND json_extract(include_globs, '$[5]') = '**/{README,LICENSE,CHANGELOG,CONTRIBUTING,NOTICE,AUTHORS,Makefile,Dockerfile}';
  `,
  /* agent memory (engine/memory): every entry is a document of the `~memory` collection (its text in
     contents, chunks, keyword rows in memory_fts, vectors in the collection's space — searched by the
     same code as documents); these tables hold what only memory has. Ids come from memory_entries
     (AUTOINCREMENT: an id is never handed out twice, so an old reference never names a new entry).
     Deleting the document row cascades to the entry, its tags and images; FTS rows and vectors go
     first through ChunkStore. */ `
  CREATE TABLE memory_entries (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    document_id INTEGER NOT NULL UNIQUE REFERENCES documents(id) ON DELETE CASCADE,
    thread_id TEXT NOT NULL,
    source TEXT NOT NULL CHECK (source IN ('user', 'agent')),
    content_type TEXT NOT NULL CHECK (content_type IN ('text', 'multimodal')), -- derived: multimodal when it has images
    created_at INTEGER NOT NULL,      -- ms since the epoch, UTC
    updated_at INTEGER NOT NULL
  );
  -- threads newest first, and date ranges over everything
  CREATE INDEX memory_entries_thread ON memory_entries(thread_id, created_at);
  CREATE INDEX memory_entries_created ON memory_entries(created_at);
  -- tags (trimmed, lower-cased) for filtering and counting; the entry's document row keeps them in order (documents.tags)
  CREATE TABLE memory_tags (
    entry_id INTEGER NOT NULL REFERENCES memory_entries(id) ON DELETE CASCADE,
    tag TEXT NOT NULL,
    PRIMARY KEY (entry_id, tag)
  ) WITHOUT ROWID;
  CREATE INDEX memory_tags_tag ON memory_tags(tag);
  -- images stay out of the searchable text; returned only when asked for
  CREATE TABLE memory_images (
    id INTEGER PRIMARY KEY,
    entry_id INTEGER NOT NULL REFERENCES memory_entries(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    mime_type TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    data BLOB NOT NULL
  );
  CREATE INDEX memory_images_entry ON memory_images(entry_id, position);
  -- the persistence server's search metrics (summarised by get_statistics; the newest 10,000 kept)
  CREATE TABLE memory_search_metrics (
    id INTEGER PRIMARY KEY,
    query_type TEXT NOT NULL CHECK (query_type IN ('fts', 'semantic', 'hybrid')),
    query_text TEXT NOT NULL,
    result_count INTEGER NOT NULL,
    execution_time_ms REAL NOT NULL,
    created_at INTEGER NOT NULL
  );
  `,
  /* a memory grant per access token (see store/tokens.ts): none | read (search, get, list, statistics) |
     write (everything). Tokens that could see every collection keep seeing everything; tokens scoped to
     some collections see no memory until granted. */ `
  ALTER TABLE access_tokens ADD COLUMN memory TEXT NOT NULL DEFAULT 'none' CHECK (memory IN ('none', 'read', 'write'));
  UPDATE access_tokens SET memory = 'write' WHERE scoped = 0;
  `,
  /* a token's tool profile: standard (the canonical tools) or deep-research (exactly search + fetch,
     for ChatGPT-style connectors; set on the Connect screen) */ `
  ALTER TABLE access_tokens ADD COLUMN profile TEXT NOT NULL DEFAULT 'standard';
  `,
  /* documents inside a file (an e-mail's attachments) are rows of their own, at `<file path>/<sub-path>`,
     whose parent is the file's row: they come and go with it (ingest/indexer.ts), the folder scan and
     rename detection skip them, and their freshness is the file's */ `
  ALTER TABLE documents ADD COLUMN parent_id INTEGER REFERENCES documents(id) ON DELETE CASCADE;
  CREATE INDEX documents_parent ON documents(parent_id) WHERE parent_id IS NOT NULL;
  -- mail read before this carried its attachments inline: the next reconcile reads it again
  UPDATE documents SET hash = NULL, mtime_ms = -1 WHERE kind = 'email' AND status = 'indexed';
  `,
  /* secret redaction per collection (NULL: follow the Settings switch, which is on by default) and
     token expiry (NULL: never). See redaction/policy.ts and store/tokens.ts. */ `
  ALTER TABLE collections ADD COLUMN redact_secrets INTEGER; -- NULL | 0 | 1
  ALTER TABLE access_tokens ADD COLUMN expires_at INTEGER;  -- ms since the epoch; NULL: never
  `,
  /* per keyword index, the rows and tokens FTS5's totals record still counts though they were deleted
     (a contentless delete never subtracts them): BM25's true N and average length are FTS5's minus
     these. Written by the FTS delete path (store/chunks.ts); rows are filled in from %_docsize at
     open (store/fts-totals.ts), which also measures what an older database already overstates. */ `
  CREATE TABLE fts_deleted (
    idx TEXT PRIMARY KEY,             -- chunks_fts | dataset_fts | memory_fts
    rows INTEGER NOT NULL,
    tokens INTEGER NOT NULL
  );
  `,
  /* pages only OCR can read (a scanned PDF's pages, an image's): one row per document that has them,
     written with it by the index write and worked by the OCR stage (store/ocr.ts); the languages a
     collection's scans are read in (NULL: English); and images join the default include list, now
     that they are read (collections still on the previous default get them at the next reconcile) */ `
  ALTER TABLE collections ADD COLUMN ocr_languages TEXT; -- JSON array of Tesseract codes; NULL: ["eng"]
  CREATE TABLE ocr_documents (
    document_id INTEGER PRIMARY KEY REFERENCES documents(id) ON DELETE CASCADE,
    collection_id INTEGER NOT NULL REFERENCES collections(id) ON DELETE CASCADE,
    hash TEXT NOT NULL,               -- sha256 of the file the pages were listed from
    source TEXT NOT NULL,             -- image | pdf
    pages TEXT NOT NULL,              -- JSON array: every page that needs OCR
    pages_total INTEGER NOT NULL,
    pages_done INTEGER NOT NULL DEFAULT 0,    -- recognised, their text in the document
    pages_failed INTEGER NOT NULL DEFAULT 0,
    pages_left INTEGER NOT NULL,              -- 0: finished
    failed TEXT NOT NULL DEFAULT '[]',        -- JSON [{page, reason}]: not retried until the file changes
    languages TEXT,                           -- what the done pages were read with: eng+deu
    attempts INTEGER NOT NULL DEFAULT 0,      -- failures to read the document at all, in a row
    next_at INTEGER NOT NULL DEFAULT 0,       -- not due before (ms)
    last_error TEXT,
    claimed_until INTEGER NOT NULL DEFAULT 0, -- PostgreSQL's hosts hold a document until then; unused on SQLite
    queued_at INTEGER NOT NULL                -- newest first
  );
  CREATE INDEX ocr_documents_due ON ocr_documents(collection_id, queued_at) WHERE pages_left > 0;
  UPDATE collections SET include_globs = json_insert(include_globs, '$[#]', '**/*.{png,jpg,jpeg,jpe,jfif,tif,tiff,webp,gif,bmp}')
   WHERE include_globs = '["**/*.{md,markdown,mdx,mdown,txt,text,rst,adoc,asciidoc,org,tex,log}","**/*.{pdf,docx,docm,dotx,pptx,pptm,ppsx,xlsx,xlsm,odt,odp,ods,epub,rtf,eml,mbox,doc,ppt,xls}","**/*.{html,htm,xhtml}","**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs,vue,svelte,py,pyi,rb,go,rs,java,kt,kts,scala,swift,m,mm,c,h,cc,cpp,cxx,hpp,hh,cs,fs,php,pl,lua,r,jl,dart,ex,exs,erl,hs,clj,el,zig,nim,sol}","**/*.{sh,bash,zsh,fish,ps1,psm1,bat,cmd,sql,graphql,proto,css,scss,less}","**/*.{json,jsonc,yaml,yml,toml,ini,cfg,conf,xml,csv,tsv}","**/{README,LICENSE,CHANGELOG,CONTRIBUTING,NOTICE,AUTHORS,Makefile,Dockerfile}"]';
  `,
  /* embed less: the text a chunk's vector was made from, by digest (written with the vector), so a
     chunk whose exact text already has a vector in the space gets a copy instead of a model run; and
     the vectors of a re-indexed or removed document's chunks, kept by that digest until the stage
     has filled the space again, so an edited document's unchanged chunks are not embedded twice
     (store/vectors.ts) */ `
  ALTER TABLE chunks ADD COLUMN text_hash TEXT;   -- sha256 of the chunk's text (hex, 32 chars); NULL until embedded
  CREATE INDEX chunks_text_hash ON chunks(text_hash) WHERE text_hash IS NOT NULL;
  CREATE TABLE retired_vectors (
    space_id INTEGER NOT NULL,
    text_hash TEXT NOT NULL,
    embedding BLOB NOT NULL,
    retired_at INTEGER NOT NULL,    -- ms since the epoch; pruned when a fill of the space completes
    PRIMARY KEY (space_id, text_hash)
  ) WITHOUT ROWID;
  `,
  /* the documents' texts compressed in blocks (store/content-blocks.ts): a read of a range inflates
     only the blocks it covers, and the text takes ~2.8× less room (it was 1.10× the corpus on its
     own at 100,000 documents). The rows are converted by trove_blocks, the table function the
     engine's connection registers before migrating (store/database.ts); a memory entry's text stays
     one block, as its statements read it (store/sqlite/memory-entries.ts). */ `
  CREATE TABLE content_blocks (
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    start INTEGER NOT NULL,           -- the block's first character (UTF-16 code units)
    data BLOB NOT NULL,               -- its text as UTF-8, compressed (zstd since the next migration; brotli before)
    PRIMARY KEY (document_id, start)
  );
  INSERT INTO content_blocks (document_id, start, data)
    SELECT t.document_id, b.start, b.data
      FROM contents t JOIN documents d ON d.id = t.document_id JOIN collections c ON c.id = d.collection_id,
           trove_blocks(t.text, c.kind = 'memory') b
     ORDER BY t.document_id;
  DROP TABLE contents;
  `,
  /* the blocks' codec, brotli → zstd (store/content-blocks.ts): a snippet's block inflates ~3× faster
     and a batch's text compresses ~2× faster. trove_recode_block leaves a zstd block (written by the
     migration above in this same opening) as it is. */ `
  UPDATE content_blocks SET data = trove_recode_block(data);
  `,
  /* a hit's OCR confidence (metadata.ocr.confidence) in a column of its own, written with the
     metadata (store/documents.ts OCR_CONFIDENCE): a page of hits read it with json_extract over each
     hit's whole front matter, ~60% of the time of the page's document read. Only a metadata that
     names "ocr" can hold it. */ `
  ALTER TABLE documents ADD COLUMN ocr_confidence TEXT;
  UPDATE documents SET ocr_confidence = json_extract(metadata, '$.ocr.confidence') WHERE instr(metadata, '"ocr"') > 0;
  `,
  /* a collection's documents in id order without sorting them all: the language sample that picks
     a collection's model (store/documents.ts) reads its first documents, and before this index
     every read took and inflated all of them. */ `
  CREATE INDEX documents_collection ON documents(collection_id);
  `,
];
