// A small element tree over htmlparser2's XML mode, for the XML inside Office, OpenDocument and
// EPUB files: elements by qualified name, their text, their attributes. Entities are decoded.
import { parseDocument } from 'htmlparser2';

export interface XmlNode {
  type: string;
  name: string;
  attribs: Record<string, string>;
  children: XmlNode[];
  data?: string;
}

export function parseXml(xml: string): XmlNode {
  return parseDocument(xml, { xmlMode: true, decodeEntities: true }) as unknown as XmlNode;
}

export const isElement = (n: XmlNode): boolean => n.type === 'tag' || n.type === 'script' || n.type === 'style';

/** The first descendant element with this name (depth first), or undefined. */
export function find(node: XmlNode, name: string): XmlNode | undefined {
  for (const c of node.children ?? []) {
    if (!isElement(c)) continue;
    if (c.name === name) return c;
    const inner = find(c, name);
    if (inner) return inner;
  }
  return undefined;
}

/** Every descendant element with one of these names, in document order, not looking inside a match. */
export function findAll(node: XmlNode, names: string | ReadonlySet<string>, out: XmlNode[] = []): XmlNode[] {
  for (const c of node.children ?? []) {
    if (!isElement(c)) continue;
    if (typeof names === 'string' ? c.name === names : names.has(c.name)) out.push(c);
    else findAll(c, names, out);
  }
  return out;
}

/** Element children (not text). */
export function childElements(node: XmlNode): XmlNode[] {
  return (node.children ?? []).filter(isElement);
}

/** All text inside a node, in order. */
export function textOf(node: XmlNode): string {
  if (node.type === 'text' || node.type === 'cdata') return node.data ?? (node.children ?? []).map(textOf).join('');
  let out = '';
  for (const c of node.children ?? []) out += textOf(c);
  return out;
}

/** Local part of a qualified name: `w:p` → `p`. */
export function localName(name: string): string {
  const i = name.indexOf(':');
  return i < 0 ? name : name.slice(i + 1);
}

/** The relationship id an element points with (`r:id`, whatever the prefix; never a plain `id`). */
export function relationshipId(node: XmlNode): string | undefined {
  for (const [k, v] of Object.entries(node.attribs ?? {})) if (k.includes(':') && localName(k) === 'id') return v;
  return undefined;
}

/** Relationship id → target, from a `.rels` part. */
export function readRelationships(xml: string | undefined): Map<string, { target: string; type: string; external: boolean }> {
  const out = new Map<string, { target: string; type: string; external: boolean }>();
  if (!xml) return out;
  for (const r of findAll(parseXml(xml), new Set(['Relationship']))) {
    const id = r.attribs.Id;
    if (id && r.attribs.Target) out.set(id, { target: r.attribs.Target, type: r.attribs.Type ?? '', external: r.attribs.TargetMode === 'External' });
  }
  return out;
}

/** Title (and a few more fields) from an OOXML `docProps/core.xml`. */
export function readCoreProperties(xml: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!xml) return out;
  const root = parseXml(xml);
  for (const [tag, key] of [['dc:title', 'title'], ['dc:creator', 'author'], ['dc:subject', 'subject'], ['cp:keywords', 'keywords'], ['dc:description', 'description']] as const) {
    const el = find(root, tag);
    const value = el && textOf(el).trim();
    if (value) out[key] = value;
  }
  return out;
}
