// What a new collection indexes unless told otherwise, and what it never indexes.

/** Text, documents, images and source code. `--include` replaces this list. */
export const DEFAULT_INCLUDE: readonly string[] = [
  '**/*.{md,markdown,mdx,mdown,txt,text,rst,adoc,asciidoc,org,tex,log}',
  // documents, parsed in worker threads (legacy .doc/.ppt/.xls are listed so status can say why they are not read)
  '**/*.{pdf,docx,docm,dotx,pptx,pptm,ppsx,xlsx,xlsm,odt,odp,ods,epub,rtf,eml,mbox,doc,ppt,xls}',
  '**/*.{html,htm,xhtml}',
  // images: found by their name at once, their text recognised by the OCR stage (engine/ocr)
  '**/*.{png,jpg,jpeg,jpe,jfif,tif,tiff,webp,gif,bmp}',
  '**/*.{ts,tsx,mts,cts,js,jsx,mjs,cjs,vue,svelte,py,pyi,rb,go,rs,java,kt,kts,scala,swift,m,mm,c,h,cc,cpp,cxx,hpp,hh,cs,fs,php,pl,lua,r,jl,dart,ex,exs,erl,hs,clj,el,zig,nim,sol}',
  '**/*.{sh,bash,zsh,fish,ps1,psm1,bat,cmd,sql,graphql,proto,css,scss,less}',
  '**/*.{json,jsonc,yaml,yml,toml,ini,cfg,conf,xml,csv,tsv}',
  '**/{README,LICENSE,CHANGELOG,CONTRIBUTING,NOTICE,AUTHORS,Makefile,Dockerfile}',
];

/** Folders that are tooling or build output, pruned during the walk (matched by folder name). */
export const EXCLUDED_DIR_NAMES: ReadonlySet<string> = new Set([
  'node_modules', '.git', '.hg', '.svn', '.jj', 'bower_components', '__pycache__', '.venv', 'venv',
  '.tox', '.mypy_cache', '.pytest_cache', '.ruff_cache', '.next', '.nuxt', '.svelte-kit', '.turbo',
  '.parcel-cache', '.cache', '.gradle', '.idea', '.vs', 'dist', 'coverage', '.terraform', '.trove',
]);

/** Default extra excludes; `--exclude` adds to these. */
export const DEFAULT_EXCLUDE: readonly string[] = ['**/*.min.js', '**/*.min.css', '**/*.map', '**/package-lock.json'];

/**
 * Secrets are never indexed, whatever the include globs say: an index is easy to copy
 * and its text is served to assistants.
 */
export const SECRET_PATTERNS: readonly string[] = [
  '**/.env', '**/.env.*', '**/*.env',
  '**/*.{pem,key,p12,pfx,jks,keystore,kdbx,gpg,asc}',
  '**/id_{rsa,dsa,ecdsa,ed25519}*',
  '**/{.netrc,_netrc,.npmrc,.pypirc,.pgpass,.git-credentials,.htpasswd}',
  '**/{credentials,credentials.*,*.credentials,*-credentials.json,*_credentials.json}',
  '**/{token,token.*,tokens.*,*.token,access_token*,refresh_token*}',
  '**/{secrets.*,secret.*,*.secret,*.secrets}',
  '**/.aws/**', '**/.ssh/**', '**/.gnupg/**', '**/.docker/config.json', '**/.kube/config',
];
