// E-mail: `.eml` (one message) and `.mbox` (many; one section per message, `[message N: subject]`
// in the text and the message number in each chunk's locator), parsed with postal-mime. From, to,
// date and subject are the document's metadata (an .eml's subject is its title) and head each
// message's text; the body is the plain-text part, else the HTML part's text. An attachment in a
// document format (PDF, Office, OpenDocument, EPUB, RTF) is a document of its own, at
// `<mail>/<name>` (an .eml) or `<mail>/<message N>/<name>` (an .mbox): the message lists it, the
// indexer keeps it in step with the mail (ParsedDocument.attachments). Text attachments and
// forwarded messages follow their message under `[attachment: name]`; one that cannot be read is a warning.
import PostalMime, { type Address, type Email } from 'postal-mime';
import { decodeText } from '../decode.js';
import { DocBuilder } from './doc-builder.js';
import { htmlParser } from './html.js';
import { baseTitle, type DocumentParser, type EmbeddedFile, type ParseLimits, type ParsedDocument, type Parser } from './types.js';

const MAX_MESSAGES = 50_000;
const MAX_ATTACHMENT_DEPTH = 2;
/** Attachments indexed as their own documents per mail file; past this they are left out with a warning. */
const MAX_OWN_DOCUMENTS = 1000;

/** Where a mail file's attachments that are documents of their own are collected while it is read. */
type Collector = { files: EmbeddedFile[]; message: number | null; names: Set<string>; full: boolean };

/** The parsers an attachment is read with, by its name (parsers/index.ts hands them in: it registers this parser too). */
export interface AttachmentFormats {
  documentParserFor(name: string): DocumentParser | undefined;
  parserFor(name: string): Parser;
}

export function emailParser(formats: AttachmentFormats): DocumentParser {
  return {
    kind: 'email',
    binary: true,
    async parse(bytes, fileName, limits): Promise<ParsedDocument> {
      return parseMail(bytes, fileName, limits, 0, formats);
    },
  };
}

async function parseMail(bytes: Uint8Array, fileName: string, limits: ParseLimits, depth: number, formats: AttachmentFormats): Promise<ParsedDocument> {
  const out = new DocBuilder(limits.maxTextChars);
  const mbox = fileName.toLowerCase().endsWith('.mbox') || startsWithFromLine(bytes);
  // only the mail file itself has documents of its own; a forwarded message's attachments stay in its text
  const own: Collector | null = depth === 0 ? { files: [], message: null, names: new Set(), full: false } : null;
  const done = (doc: ParsedDocument): ParsedDocument => (own?.files.length ? { ...doc, attachments: own.files } : doc);
  if (!mbox) {
    const mail = await readMessage(bytes);
    await writeMessage(out, mail, limits, depth, own, formats);
    const meta = headerFields(mail);
    return done(out.build(mail.subject?.trim() || baseTitle(fileName), 'email', meta));
  }
  const messages = splitMbox(bytes);
  if (!messages.length) throw new Error('no messages in this mailbox (no "From " separator lines)');
  for (const [i, raw] of messages.entries()) {
    if (out.isFull) break;
    if (i >= MAX_MESSAGES) {
      out.warn(`the mailbox has more than ${MAX_MESSAGES.toLocaleString('en-US')} messages; the rest were not indexed`);
      break;
    }
    let mail: Email;
    try {
      mail = await readMessage(raw);
    } catch (err) {
      out.page('message', i + 1);
      out.warn(`message ${i + 1} cannot be read: ${(err as Error).message}`);
      continue;
    }
    out.page('message', i + 1, mail.subject?.trim());
    if (own) Object.assign(own, { message: i + 1, names: new Set() });
    await writeMessage(out, mail, limits, depth, own, formats);
  }
  return done(out.build(baseTitle(fileName), 'email', { messages: messages.length }));
}

async function readMessage(bytes: Uint8Array): Promise<Email> {
  try {
    return await PostalMime.parse(bytes, { attachmentEncoding: 'arraybuffer', maxNestingDepth: 50 });
  } catch (err) {
    throw new Error(`not a readable e-mail message (${(err as Error).message})`);
  }
}

async function writeMessage(out: DocBuilder, mail: Email, limits: ParseLimits, depth: number, own: Collector | null, formats: AttachmentFormats): Promise<void> {
  const { documentParserFor } = formats;
  const fields = headerFields(mail);
  out.heading(1, mail.subject?.trim() || '(no subject)');
  out.lines(Object.entries(fields).filter(([k]) => k !== 'subject').map(([k, v]) => `${k[0]!.toUpperCase()}${k.slice(1)}: ${v}`));
  const body = mail.text?.trim() ? mail.text : mail.html ? htmlParser.parse(mail.html, 'message.html').text : '';
  for (const para of body.replace(/\r\n?/g, '\n').split(/\n[ \t]*\n/)) out.lines(para.split('\n'));
  for (const [n, att] of mail.attachments.entries()) {
    if (out.isFull) return;
    const name = att.filename || `attachment-${n + 1}`;
    if (att.related || att.mimeType.startsWith('image/')) continue; // inline pictures: nothing to read
    if (own && documentParserFor(name) && documentParserFor(name)!.kind !== 'email') {
      if (own.files.length >= MAX_OWN_DOCUMENTS) {
        if (!own.full) out.warn(`more than ${MAX_OWN_DOCUMENTS} attachments; "${name}" and the ones after it were not indexed`);
        own.full = true;
        continue;
      }
      const file = uniqueName(safeName(name), own.names);
      own.files.push({ path: own.message === null ? file : `${own.message}/${file}`, bytes: toBytes(att.content) });
      out.lines([`Attachment: ${file}`]);
      continue;
    }
    const text = await attachmentText(name, att.mimeType, toBytes(att.content), limits, depth, formats);
    if (text === null) continue;
    if (!text.ok) {
      out.warn(`attachment "${name}" cannot be read: ${text.reason}`);
      continue;
    }
    out.marker('attachment', name);
    out.parsed({ text: text.text, headings: [], atomic: [] });
  }
}

type AttachmentText = { ok: true; text: string } | { ok: false; reason: string };

/** The text of an attachment in a format we read; null for other formats (left out quietly). */
async function attachmentText(name: string, mimeType: string, bytes: Uint8Array, limits: ParseLimits, depth: number, formats: AttachmentFormats): Promise<AttachmentText | null> {
  const { documentParserFor, parserFor } = formats;
  try {
    if (depth < MAX_ATTACHMENT_DEPTH && (mimeType === 'message/rfc822' || /\.(eml)$/i.test(name))) {
      return { ok: true, text: (await parseMail(bytes, name, limits, depth + 1, formats)).text };
    }
    const parser = documentParserFor(name);
    if (parser) {
      if (parser.kind === 'email' && depth >= MAX_ATTACHMENT_DEPTH) return null;
      return { ok: true, text: (await parser.parse(bytes, name, limits)).text };
    }
    if (!mimeType.startsWith('text/') && !/\.(txt|md|markdown|csv|html?)$/i.test(name)) return null;
    const decoded = decodeText(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    if (!decoded.ok) return { ok: false, reason: decoded.reason };
    const textParser = mimeType === 'text/html' ? htmlParser : parserFor(name);
    return { ok: true, text: textParser.parse(decoded.text, name).text };
  } catch (err) {
    return { ok: false, reason: (err as Error).message };
  }
}

/** An attachment's name as one path segment: no slashes, control characters or dot-only names. */
function safeName(name: string): string {
  const s = name.replace(/[\\/\u0000-\u001f]/g, '_').trim().slice(0, 200);
  return /^\.*$/.test(s) ? `_${s}` : s;
}

/** The name, or `name (2).ext` when the message already has an attachment of that name. */
function uniqueName(name: string, taken: Set<string>): string {
  const dot = name.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  let out = name;
  for (let n = 2; taken.has(out); n++) out = `${stem} (${n})${ext}`;
  taken.add(out);
  return out;
}

function headerFields(mail: Email): Record<string, string> {
  const out: Record<string, string> = {};
  if (mail.from) out.from = addresses([mail.from]);
  if (mail.to?.length) out.to = addresses(mail.to);
  if (mail.cc?.length) out.cc = addresses(mail.cc);
  if (mail.date) out.date = mail.date;
  if (mail.subject) out.subject = mail.subject.trim();
  return out;
}

function addresses(list: Address[]): string {
  return list
    .flatMap((a) => (a.address === undefined && 'group' in a && Array.isArray(a.group) ? (a.group as Address[]) : [a]))
    .map((a) => (a.name && a.address ? `${a.name} <${a.address}>` : a.address || a.name))
    .filter(Boolean)
    .join(', ');
}

function toBytes(content: ArrayBuffer | Uint8Array | string): Uint8Array {
  if (typeof content === 'string') return new TextEncoder().encode(content);
  return content instanceof Uint8Array ? content : new Uint8Array(content);
}

function startsWithFromLine(bytes: Uint8Array): boolean {
  return bytes[0] === 0x46 && Buffer.from(bytes.subarray(0, 5)).toString('latin1') === 'From ';
}

/** mbox: messages start at "From " lines; ">From " lines inside them are unescaped (mboxrd). */
export function splitMbox(bytes: Uint8Array): Uint8Array[] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const starts: number[] = [];
  const re = /^From [^\n]*$/gm;
  for (let m = re.exec(text); m; m = re.exec(text)) if (m.index === 0 || text[m.index - 1] === '\n') starts.push(m.index);
  return starts.map((start, i) => {
    const headerEnd = text.indexOf('\n', start) + 1;
    const end = starts[i + 1] ?? text.length;
    const body = text.slice(headerEnd, end).replace(/^>(>*From )/gm, '$1');
    return Buffer.from(body, 'latin1');
  });
}
