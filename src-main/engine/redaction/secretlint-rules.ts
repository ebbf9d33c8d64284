// The maintained half of secret detection: secretlint's recommended preset (AWS, GitHub, GitLab,
// OpenAI, Anthropic, Slack, SendGrid, Shopify, npm, private keys, basic auth and database URLs,
// Hugging Face, Vercel, Grafana, Linear, 1Password, Databricks, …), updated with the package.
// Each rule is run directly over a text with a minimal context — secretlint's own core adds a
// message pipeline that took minutes on a megabyte of text with many findings.
import { rules } from '@secretlint/secretlint-rule-preset-recommend';
import type { SecretFinding } from './secret-finding.js';

/** Rules that need a real file (GCP's p12/JSON key files) or are directives, not detectors. */
const NOT_FOR_TEXT = new Set(['@secretlint/secretlint-rule-filter-comments', '@secretlint/secretlint-rule-gcp']);

interface RuleHandler {
  id: string;
  file: (source: { content: string; filePath: string; ext: string; contentType: 'text' }) => unknown;
}

let sink: SecretFinding[] = [];
let handlers: RuleHandler[] | null = null;

function ruleHandlers(): RuleHandler[] {
  handlers ??= rules
    .filter((rule) => !NOT_FOR_TEXT.has(rule.meta.id))
    .flatMap((rule) => {
      const id = rule.meta.id.replace('@secretlint/secretlint-rule-', '');
      const context = {
        createTranslator: () => () => ({}),
        report: (d: { range: readonly [number, number] }) => void sink.push({ start: d.range[0], end: d.range[1], rule: id }),
        ignore: () => undefined,
      };
      const handler = (rule.create as (c: unknown, o: unknown) => { file?: RuleHandler['file'] })(context, { allows: [], enableIDScanRule: true }); // AWS: key IDs too, not only secret keys
      return handler.file ? [{ id, file: handler.file.bind(handler) }] : [];
    });
  return handlers;
}

/** The secrets secretlint's recommended rules find in a text. */
export function secretlintFindings(text: string): SecretFinding[] {
  const found: SecretFinding[] = [];
  sink = found;
  try {
    for (const h of ruleHandlers()) {
      try {
        h.file({ content: text, filePath: '', ext: '', contentType: 'text' });
      } catch {
        /* a rule that trips over odd text finds nothing in it; the others still run */
      }
    }
  } finally {
    sink = [];
  }
  return found;
}

/** The ids of the rules in use (Settings shows them; the tests cover each). */
export function secretlintRuleIds(): string[] {
  return ruleHandlers().map((h) => h.id);
}
