// Secret redaction, pattern by pattern: every rule of secretlint's recommended preset and every one
// of Trove's own finds a realistic (made-up) secret of its kind inside ordinary text and leaves the
// text around it alone; ordinary prose and code (variables, placeholders, calls, hashes, public
// keys) come through untouched. A new rule in an updated preset fails the first test until it has
// a sample here.
import { describe, expect, it } from 'vitest';
import { extraFindings, looksRandom } from '../../src-main/engine/redaction/extra-patterns.js';
import { findSecrets, redactSecrets, REDACTED_SECRET, rememberedScans } from '../../src-main/engine/redaction/secret-scanner.js';
import { secretlintFindings, secretlintRuleIds } from '../../src-main/engine/redaction/secretlint-rules.js';

// deterministic made-up characters (never real credentials)
let seed = 20260512;
function rand(n: number, alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'): string {
  let out = '';
  for (let i = 0; i < n; i++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    out += alphabet[(seed >>> 12) % alphabet.length];
  }
  return out;
}
const UPPER_DIGITS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const HEX = '0123456789abcdef';
const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** A service-account token in 1Password's shape: ops_ + base64 of its JSON (ending in "fQ"). */
function onePasswordToken(): string {
  for (let pad = 0; ; pad++) {
    const json = JSON.stringify({
      email: 'made-up@1passwordserviceaccounts.lcl',
      muk: { alg: 'A256GCM', ext: true, k: rand(43), key_ops: ['encrypt', 'decrypt'], kty: 'oct', kid: 'mp' },
      secretKey: `A3-${rand(6, UPPER_DIGITS)}-${rand(6, UPPER_DIGITS)}-${rand(5, UPPER_DIGITS)}`,
      srpX: rand(64, HEX),
      signInAddress: `${'x'.repeat(pad)}.example.com`,
      userAuth: { method: 'SRPg-4096', alg: 'PBES2g-HS256', iterations: 100000, salt: rand(22) },
    });
    const b64 = Buffer.from(json).toString('base64');
    if (/fQ=*$/.test(b64)) return `ops_${b64}`;
  }
}

const pem = (label: string) => `-----BEGIN ${label}PRIVATE KEY-----\nMII${rand(61, B64)}\n${rand(64, B64)}\n${rand(40, B64)}=\n-----END ${label}PRIVATE KEY-----`;

/** secretlint rule id → a secret it must find (the whole string is the secret, or contains it). */
const SECRETLINT_SAMPLES: Record<string, string> = {
  aws: `AKIA${rand(16, UPPER_DIGITS)}`,
  privatekey: pem('RSA '),
  npm: `npm_${rand(36)}`,
  basicauth: `https://deploy:${rand(14)}@git.example.com`,
  slack: `xoxb-${rand(12, '0123456789')}-${rand(13, '0123456789')}-${rand(24)}`,
  sendgrid: `SG.${rand(22)}.${rand(43)}`,
  shopify: `shpat_${rand(32, HEX)}`,
  github: `ghp_${rand(36)}`,
  gitlab: `glpat-${rand(20)}`,
  grafana: `glsa_${rand(32)}_${rand(8, HEX)}`,
  openai: `sk-proj-${rand(74)}T3BlbkFJ${rand(74)}`,
  anthropic: `sk-ant-api03-${rand(93)}AA`,
  groq: `gsk_${rand(52)}`,
  huggingface: `hf_${rand(34, LETTERS)}`,
  linear: `lin_api_${rand(40)}`,
  notion: `ntn_${rand(11, '0123456789')}${rand(35)}`,
  '1password': onePasswordToken(),
  'database-connection-string': `postgres://app:${rand(16)}@db.internal:5432/prod`,
  'hashicorp-vault': `hvs.${rand(95)}`,
  vercel: `vcp_${rand(24)}`,
  databricks: `dapi${rand(32, HEX)}`,
  docker: `dckr_pat_${rand(27)}`,
  figma: `figd_${rand(40)}`,
};

/** Trove's own patterns → the secret with what stands before and after it. */
const EXTRA_SAMPLES: Record<string, [string, string, string?]> = {
  stripe: ['', `sk_live_${rand(24)}`],
  'stripe-webhook': ['', `whsec_${rand(32)}`],
  'google-api-key': ['', `AIza${rand(35)}`],
  'google-oauth-secret': ['', `GOCSPX-${rand(28)}`],
  jwt: ['', `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9.${rand(43)}`],
  openai: ['', `sk-${rand(48)}`],
  'url-password': ['redis://:', `${rand(18)}`, '@cache.internal:6379'],
  'assigned-secret': ['DEPLOY_TOKEN=', `${rand(8)}9${rand(14)}`],
};

function embed(secret: string): { text: string; before: string; after: string } {
  const before = 'Notes from the deploy on Tuesday.\nThe value we used was ';
  const after = ' and it worked.\nNext: rotate it.\n';
  return { text: before + secret + after, before, after };
}

describe("secretlint's recommended rules, one sample each", () => {
  it('every rule in use has a sample (an updated preset with a new rule needs one here)', () => {
    expect(secretlintRuleIds().sort()).toEqual(Object.keys(SECRETLINT_SAMPLES).sort());
  });

  for (const [rule, secret] of Object.entries(SECRETLINT_SAMPLES)) {
    it(`${rule}: found and redacted, the text around it kept`, () => {
      const { text, before, after } = embed(secret);
      expect(secretlintFindings(text).map((f) => f.rule)).toContain(rule);
      const out = redactSecrets(text).text;
      expect(out).not.toContain(secret);
      expect(out.startsWith(before.slice(0, 30))).toBe(true);
      expect(out).toContain(REDACTED_SECRET);
      expect(out.endsWith(after)).toBe(true);
    });
  }
});

describe("Trove's own patterns, one sample each", () => {
  for (const [rule, [prefix, secret, suffix = '']] of Object.entries(EXTRA_SAMPLES)) {
    it(`${rule}: found and redacted`, () => {
      const { text, after } = embed(`${prefix}${secret}${suffix}`);
      expect(extraFindings(text).map((f) => f.rule)).toContain(rule);
      const out = redactSecrets(text).text;
      expect(out).not.toContain(secret);
      expect(out.endsWith(after)).toBe(true);
    });
  }

  it('private keys: line-numbered (get), cut before its end or after its start (snippets)', () => {
    const key = pem('');
    const numbered = key.split('\n').map((l, i) => `${i + 3}: ${l}`).join('\n');
    const body = key.split('\n')[2]!;
    for (const text of [`1: # Keys\n2:\n${numbered}\n9: done`, `intro\n${key.slice(0, 120)}`, `${key.slice(90)}\nmore text after`]) {
      const out = redactSecrets(text).text;
      expect(out).toContain(REDACTED_SECRET);
      expect(out).not.toContain(body.slice(0, 20));
    }
    expect(redactSecrets(`1: # Keys\n2:\n${numbered}\n9: done`).text).toMatch(/^1: # Keys\n2:\n3: \[redacted secret\]\n9: done$/);
  });

  it('AWS secret access keys assigned to their usual names (secretlint)', () => {
    const key = rand(40, B64);
    const out = redactSecrets(`[default]\naws_secret_access_key = ${key}\n`).text;
    expect(out).not.toContain(key);
    expect(out).toMatch(/^\[default\]\n.*\[redacted secret\]\n$/);
  });

  it('high-entropy assignments to *_KEY, *_TOKEN, *_SECRET and password names, in several syntaxes', () => {
    const v = () => `${rand(6)}7${rand(15)}`;
    for (const line of [`API_KEY=${v()}`, `"apiToken": "${v()}"`, `client_secret: ${v()}`, `$password = '${v()}'`, `export GITHUB_TOKEN="${v()}"`, `db.password := ${v()}`]) {
      expect(findSecrets(line).length, line).toBe(1);
    }
  });
});

describe('ordinary text is left alone', () => {
  const clean = [
    'The quick brown fox jumps over the lazy dog. Retry with exponential backoff and jitter.',
    'api_key = os.environ["API_KEY"]',
    'password: ${DB_PASSWORD}',
    'token = get_token()',
    'Set-Secret -Name MySecretName -Secret $secureString',
    '$credential = Get-Credential -Message "Enter your password"',
    'commit 3f2a9c1e5b7d4f6a8c0e2b4d6f8a0c2e4b6d8f0a',
    'public_key = "AAAAC3NzaC1lZDI1NTE5AAAAIHx7kq9PL2m1vR5a"',
    'sk-learn-compatible-estimators-and-transformers-for-pipelines',
    'Use https://example.com:8443/path and mailto:someone@example.com',
    'password = "password"',
    'SECRET_KEY = "your-secret-key-here"',
    'access_token: <ACCESS_TOKEN>',
    'std::unique_ptr<Widget> token_buffer = make_unique<Widget>(kTokenBufferSize);',
    'The AccessKeyId and SecretAccessKey fields hold the credentials; see Get-AWSCredential.',
    // false positives the clean-corpus bench (npm run reliability:redaction) found, now left alone
    '"ATLSECURITY/ATL::CAccessToken::CheckTokenMembership", "ATLSECURITY/ATL::CAccessToken::CreatePrimaryToken"',
    "    AccountPassword = (ConvertTo-SecureString -String 'P@ssw0rd' -AsPlainText -Force)",
    '$token = (Get-AzAccessToken -ResourceUrl https://vault.azure.net).Token',
    'If your private key begins with `-----BEGIN OPENSSH PRIVATE KEY-----`, convert it with `ssh-keygen -p -f <FILE> -m pem`.\n\n1. Choose the **Connect** button.',
  ];
  for (const text of clean) {
    it(JSON.stringify(text.slice(0, 60)), () => {
      expect(findSecrets(text)).toEqual([]);
    });
  }

  it('looksRandom: identifiers, words and versions are not random', () => {
    for (const s of ['getAccessTokenFromEnvironment', 'my-very-long-placeholder-name', 'VERSION_1_2_3_RELEASE', 'ThisIsCamelCaseWords']) expect(looksRandom(s), s).toBe(false);
    expect(looksRandom('9fK2mQ7xL1pR8vZ3tY6w')).toBe(true);
  });
});

describe('highlights move with redacted secrets', () => {
  it('spans after a secret shift by the length change; a span on the secret is dropped', async () => {
    const { redactValue } = await import('../../src-main/engine/redaction/policy.js');
    const { UserRuleRunner } = await import('../../src-main/engine/redaction/user-rules.js');
    const token = `ghp_${rand(36)}`;
    const snippet = `12: deploy with ${token} then restart the deploy`;
    const at = (w: string, from = 0): [number, number] => [snippet.indexOf(w, from), snippet.indexOf(w, from) + w.length];
    const hit = { collection: 'notes', snippet, highlights: [at('deploy'), at(token), at('restart'), at('deploy', 20)] };
    const runner = new UserRuleRunner();
    try {
      const out = await redactValue({ results: [hit] }, { secrets: true, collections: new Map(), rules: ['\\brestart\\b'] }, runner);
      const r = out.results[0]!;
      expect(r.snippet).toBe(`12: deploy with ${REDACTED_SECRET} then [redacted] the deploy`);
      expect(r.highlights.map(([a, b]) => r.snippet.slice(a, b))).toEqual(['deploy', 'deploy']);
    } finally {
      await runner.close();
    }
  });
});

describe('the time budget of user rules', () => {
  it("counts the rules' time, not a new worker thread's start: a fine rule answers on a fresh worker even with a 2 ms budget; a slow one is still stopped", async () => {
    const { UserRuleRunner } = await import('../../src-main/engine/redaction/user-rules.js');
    // a thread's start alone takes longer than 2 ms (tens of ms idle, hundreds under load), so a
    // budget that counted it would stop this rule before the worker ever ran it
    const fresh = new UserRuleRunner(2);
    try {
      expect((await fresh.apply(['the lighthouse keeper logs the wind'], ['lighthouse'])).texts).toEqual(['the [redacted] keeper logs the wind']);
      await expect(fresh.apply([`${'x'.repeat(40)}!`], ['(x|x)*y'])).rejects.toThrow(/redaction rule "\(x\|x\)\*y" .*too slow/);
    } finally {
      await fresh.close();
    }
  });
});

describe('the finds of recent texts are remembered', () => {
  it('gives a text read again the finds of its first scan, and keeps the memory bounded', () => {
    const key = `AKIA${rand(16, UPPER_DIGITS)}`;
    const text = `config for the deploy: aws_access_key_id = ${key} and nothing else ${rand(40, LETTERS)}`;
    const first = findSecrets(text);
    expect(first.length).toBeGreaterThan(0);
    const again = findSecrets(`${text.slice(0, 10)}${text.slice(10)}`); // an equal text, another string
    expect(again).toBe(first);
    expect(redactSecrets(text).text).not.toContain(key);
    // 6 M characters of distinct texts: the oldest are let go, the memory stays under its bound
    for (let i = 0; i < 120; i++) findSecrets(`${i} ${'plain words in a long note '.repeat(1_850)}`);
    const held = rememberedScans();
    expect(held.chars).toBeLessThanOrEqual(4_000_000);
    expect(held.texts).toBeGreaterThan(50);
    expect(findSecrets(text)).not.toBe(first); // evicted long ago: scanned afresh, the same finds
    expect(findSecrets(text)).toEqual(first);
  });
});
