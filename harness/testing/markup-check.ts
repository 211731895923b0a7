/**
 * Checks for the markup the report outputs write, for the kit's tests (no XML or HTML library is a
 * dependency): a strict XML parser with the structural rules of the Jenkins xUnit JUnit schema
 * (fixtures/junit/junit-10.xsd), and an HTML checker for the subset of HTML the reports emit
 * (well-formed nesting, content the parser would not rearrange, unique ids, internal links that
 * resolve, nothing loaded from outside).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The copy of the Jenkins xUnit plugin's JUnit schema that junit.xml is validated against. */
export const JUNIT_XSD = fileURLToPath(new URL('../../fixtures/junit/junit-10.xsd', import.meta.url));

/** xmllint (Debian package libxml2-utils) on PATH, if any. */
export function findXmllint(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v xmllint'], { encoding: 'utf8' });
  return found.status === 0 && found.stdout.trim() !== '' ? found.stdout.trim() : undefined;
}

/** Validates an XML file against a schema (default: the JUnit one) with xmllint; status 0 when valid. */
export function validateWithXmllint(xmllint: string, file: string, schema = JUNIT_XSD): { status: number | null; output: string } {
  const run = spawnSync(xmllint, ['--noout', '--schema', schema, file], { encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

export interface XmlElement {
  name: string;
  attrs: Record<string, string>;
  children: (XmlElement | string)[];
}

/** XML 1.0 `Char`: what may appear in a document at all. */
const isXmlChar = (cp: number): boolean => cp === 0x9 || cp === 0xa || cp === 0xd || (cp >= 0x20 && cp <= 0xd7ff) || (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
const NAME = /^[A-Za-z_:][A-Za-z0-9_:.-]*/;
const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export class MarkupError extends Error {}

/** Resolves entity and character references; throws on an unknown or malformed one or on an illegal character reference. */
function decodeXml(text: string, where: string): string {
  return text.replace(/&([^;&\s]*);?/g, (whole, ref: string) => {
    if (!whole.endsWith(';')) throw new MarkupError(`${where}: '&' that starts no reference`);
    let cp: number | undefined;
    if (/^#x[0-9A-Fa-f]+$/.test(ref)) cp = parseInt(ref.slice(2), 16);
    else if (/^#[0-9]+$/.test(ref)) cp = parseInt(ref.slice(1), 10);
    else if (ref in XML_ENTITIES) return XML_ENTITIES[ref]!;
    else throw new MarkupError(`${where}: unknown entity &${ref};`);
    if (!isXmlChar(cp)) throw new MarkupError(`${where}: character reference &${ref}; is not an XML character`);
    return String.fromCodePoint(cp);
  });
}

/** Parses a well-formed XML document (declaration, comments, elements, attributes, text; no DTD). */
export function parseXml(source: string): XmlElement {
  for (const ch of source) {
    const cp = ch.codePointAt(0)!;
    if (!isXmlChar(cp)) throw new MarkupError(`character U+${cp.toString(16).toUpperCase().padStart(4, '0')} is not allowed in XML`);
  }
  let i = 0;
  const line = (): number => source.slice(0, i).split('\n').length;
  const fail = (message: string): never => {
    throw new MarkupError(`line ${line()}: ${message}`);
  };
  const skipMisc = (): void => {
    for (;;) {
      const ws = /^\s*/.exec(source.slice(i))![0];
      i += ws.length;
      if (source.startsWith('<!--', i)) {
        const end = source.indexOf('-->', i + 4);
        if (end < 0) fail('unclosed comment');
        i = end + 3;
      } else if (source.startsWith('<?', i)) {
        const end = source.indexOf('?>', i + 2);
        if (end < 0) fail('unclosed processing instruction');
        i = end + 2;
      } else return;
    }
  };
  if (source.startsWith('<?xml', 0) && !/^<\?xml\s+version="1\.[0-9]"(\s+encoding="[A-Za-z0-9._-]+")?(\s+standalone="(yes|no)")?\s*\?>/.test(source)) fail('malformed XML declaration');
  skipMisc();
  if (source.startsWith('<!DOCTYPE', i)) fail('a DOCTYPE is not expected');
  const element = (): XmlElement => {
    if (source[i] !== '<') fail('expected an element');
    i++;
    const name = NAME.exec(source.slice(i))?.[0] ?? fail('bad element name');
    i += name.length;
    const attrs: Record<string, string> = {};
    for (;;) {
      const ws = /^\s*/.exec(source.slice(i))![0];
      i += ws.length;
      if (source.startsWith('/>', i)) {
        i += 2;
        return { name, attrs, children: [] };
      }
      if (source[i] === '>') {
        i++;
        break;
      }
      if (ws.length === 0) fail(`<${name}>: attributes must be separated by white space`);
      const attr = NAME.exec(source.slice(i))?.[0] ?? fail(`<${name}>: bad attribute name`);
      i += attr.length;
      const m = /^\s*=\s*("([^"<]*)"|'([^'<]*)')/.exec(source.slice(i)) ?? fail(`<${name}>: attribute ${attr} needs a quoted value without '<'`);
      i += m[0].length;
      if (attr in attrs) fail(`<${name}>: attribute ${attr} given twice`);
      attrs[attr] = decodeXml(m[2] ?? m[3] ?? '', `<${name} ${attr}>`);
    }
    const children: (XmlElement | string)[] = [];
    for (;;) {
      if (i >= source.length) fail(`<${name}> is not closed`);
      if (source.startsWith('</', i)) {
        const m = /^<\/([A-Za-z_:][A-Za-z0-9_:.-]*)\s*>/.exec(source.slice(i)) ?? fail('malformed end tag');
        if (m[1] !== name) fail(`</${m[1]}> closes <${name}>`);
        i += m[0].length;
        return { name, attrs, children };
      }
      if (source.startsWith('<!--', i)) {
        const end = source.indexOf('-->', i + 4);
        if (end < 0) fail('unclosed comment');
        i = end + 3;
        continue;
      }
      if (source.startsWith('<![CDATA[', i)) {
        const end = source.indexOf(']]>', i);
        if (end < 0) fail('unclosed CDATA section');
        children.push(source.slice(i + 9, end));
        i = end + 3;
        continue;
      }
      if (source[i] === '<') {
        children.push(element());
        continue;
      }
      const next = source.indexOf('<', i);
      const raw = source.slice(i, next < 0 ? source.length : next);
      if (raw.includes(']]>')) fail("']]>' in text");
      children.push(decodeXml(raw, `text in <${name}>`));
      i += raw.length;
    }
  };
  const root = element();
  skipMisc();
  if (i !== source.length) fail('content after the root element');
  return root;
}

export const elements = (e: XmlElement): XmlElement[] => e.children.filter((c): c is XmlElement => typeof c !== 'string');
export const textOf = (e: XmlElement): string => e.children.map((c) => (typeof c === 'string' ? c : textOf(c))).join('');

/** xs:pattern of SUREFIRE_TIME in junit-10.xsd (XSD patterns match the whole value). */
const SUREFIRE_TIME = /^(?:(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\.[0-9]*)?)$/;

interface ElementRule {
  required: string[];
  optional: string[];
  /** Allowed child elements; `undefined`: none. */
  children?: string[];
  /** Text allowed besides white space (mixed content or a simple type). */
  text: boolean;
  /** Attributes of type SUREFIRE_TIME. */
  times?: string[];
}

const RERUN: ElementRule = { required: ['type'], optional: ['message'], children: ['stackTrace', 'system-out', 'system-err'], text: true };
/** The declarations of junit-10.xsd, element by element. */
const JUNIT_10: Record<string, ElementRule> = {
  testsuites: { required: [], optional: ['name', 'time', 'tests', 'failures', 'errors'], children: ['testsuite'], text: false, times: ['time'] },
  testsuite: {
    required: ['name', 'tests', 'failures', 'errors'],
    optional: ['group', 'time', 'skipped', 'timestamp', 'hostname', 'id', 'package', 'file', 'log', 'url'],
    children: ['testsuite', 'properties', 'testcase', 'system-out', 'system-err'],
    text: false,
    times: ['time'],
  },
  properties: { required: [], optional: [], children: ['property'], text: false },
  property: { required: ['name', 'value'], optional: [], text: false },
  testcase: {
    required: ['name'],
    optional: ['time', 'classname', 'group'],
    children: ['skipped', 'error', 'failure', 'rerunFailure', 'rerunError', 'flakyFailure', 'flakyError', 'system-out', 'system-err'],
    text: false,
  },
  failure: { required: [], optional: ['type', 'message'], text: true },
  error: { required: [], optional: ['type', 'message'], text: true },
  skipped: { required: [], optional: ['type', 'message'], text: true },
  'system-out': { required: [], optional: [], text: true },
  'system-err': { required: [], optional: [], text: true },
  rerunFailure: RERUN,
  rerunError: RERUN,
  flakyFailure: RERUN,
  flakyError: RERUN,
  stackTrace: { required: [], optional: [], text: true },
};

/**
 * Checks a parsed document against the element, attribute and nesting rules of junit-10.xsd. Returns
 * the problems found (empty when valid). The root may be `testsuites` or `testsuite`, as the schema
 * declares both globally.
 */
export function junitSchemaProblems(root: XmlElement): string[] {
  const problems: string[] = [];
  if (root.name !== 'testsuites' && root.name !== 'testsuite') problems.push(`root element <${root.name}> is not declared`);
  const visit = (e: XmlElement, path: string): void => {
    const rule = JUNIT_10[e.name];
    const here = `${path}/${e.name}${e.attrs.name !== undefined ? `[${e.attrs.name}]` : ''}`;
    if (!rule) {
      problems.push(`${here}: element not declared`);
      return;
    }
    for (const a of rule.required) if (!(a in e.attrs)) problems.push(`${here}: missing required attribute ${a}`);
    for (const a of Object.keys(e.attrs)) if (!rule.required.includes(a) && !rule.optional.includes(a)) problems.push(`${here}: attribute ${a} not allowed`);
    for (const a of rule.times ?? []) if (a in e.attrs && !SUREFIRE_TIME.test(e.attrs[a]!)) problems.push(`${here}: ${a}="${e.attrs[a]}" does not match SUREFIRE_TIME`);
    for (const c of e.children) {
      if (typeof c === 'string') {
        if (!rule.text && c.trim() !== '') problems.push(`${here}: text not allowed: ${JSON.stringify(c.slice(0, 40))}`);
      } else if (!rule.children?.includes(c.name)) problems.push(`${here}: <${c.name}> not allowed here`);
      else visit(c, here);
    }
    if (e.name === 'rerunFailure' || e.name === 'rerunError' || e.name === 'flakyFailure' || e.name === 'flakyError') {
      // A sequence of at most one of each, in order.
      const order = elements(e).map((c) => RERUN.children!.indexOf(c.name));
      if (order.some((n, k) => k > 0 && n <= order[k - 1]!)) problems.push(`${here}: children out of order or repeated`);
    }
  };
  visit(root, '');
  return problems;
}

// ---------------------------------------------------------------------------------------------------
// HTML

const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
const RAW_TEXT = new Set(['style', 'script', 'textarea', 'title']);
/** Elements whose start tag closes an open `<p>` in the HTML parser (so a `<p>` must not contain them). */
const CLOSES_P = new Set(['address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption', 'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'main', 'menu', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'ul']);
/** Where some elements may appear; the parser moves or drops them elsewhere. */
const PARENTS: Record<string, string[]> = {
  li: ['ul', 'ol', 'menu'],
  tr: ['table', 'thead', 'tbody', 'tfoot'],
  td: ['tr'],
  th: ['tr'],
  thead: ['table'],
  tbody: ['table'],
  tfoot: ['table'],
  dt: ['dl', 'div'],
  dd: ['dl', 'div'],
  summary: ['details'],
  head: ['html'],
  body: ['html'],
};
/** Elements where text other than white space is moved elsewhere by the parser. */
const NO_TEXT = new Set(['table', 'thead', 'tbody', 'tfoot', 'tr', 'ul', 'ol', 'dl', 'html', 'head']);
/** Elements that load something or run code: none may appear in a self-contained report. */
const FORBIDDEN = new Set(['script', 'link', 'img', 'iframe', 'object', 'embed', 'video', 'audio', 'source', 'track', 'picture', 'frame', 'frameset', 'base', 'form', 'input', 'svg', 'math', 'template', 'noscript']);
const LOADING_ATTRS = new Set(['src', 'srcset', 'action', 'formaction', 'poster', 'data', 'background', 'ping', 'manifest', 'xmlns']);
const HTML_ENTITIES = new Set(['amp', 'lt', 'gt', 'quot', '#39', 'nbsp']);

export interface HtmlCheck {
  problems: string[];
  ids: string[];
  /** Every `href`, in order. */
  links: string[];
  /** Count of elements per tag name. */
  tags: Map<string, number>;
  /** Text content (entities decoded only for the five basic ones), for content checks. */
  text: string;
}

/**
 * Checks HTML as the report modules write it: a doctype; every non-void element closed in order;
 * attribute values double-quoted; `&` only in known references; no element the parser would move (a
 * block inside `<p>`, a `<li>` outside a list, text in a table); unique ids; internal links that
 * resolve; and nothing that loads a resource or runs a script (no scripts, images, external links,
 * `url(` or `@import` in the style).
 */
export function checkHtml(source: string): HtmlCheck {
  const problems: string[] = [];
  const ids: string[] = [];
  const links: string[] = [];
  const tags = new Map<string, number>();
  const texts: string[] = [];
  const stack: string[] = [];
  let i = 0;
  const line = (at = i): number => source.slice(0, at).split('\n').length;
  const problem = (message: string, at = i): void => {
    if (problems.length < 50) problems.push(`line ${line(at)}: ${message}`);
  };
  const checkRefs = (text: string, where: string, at: number): void => {
    for (const m of text.matchAll(/&([^;\s&<]*)(;?)/g)) {
      const ref = m[1]!;
      if (m[2] !== ';' || !(HTML_ENTITIES.has(ref) || /^#[0-9]+$/.test(ref) || /^#x[0-9a-fA-F]+$/.test(ref))) problem(`${where}: '&${ref}${m[2]}' is not a reference the reports use`, at);
    }
  };
  if (!/^<!DOCTYPE html>\s*/i.test(source)) problem('the document does not start with <!DOCTYPE html>', 0);
  i = /^<!DOCTYPE html>\s*/i.exec(source)?.[0].length ?? 0;
  while (i < source.length) {
    if (source.startsWith('<!--', i)) {
      const end = source.indexOf('-->', i + 4);
      if (end < 0) {
        problem('unclosed comment');
        break;
      }
      i = end + 3;
      continue;
    }
    if (source.startsWith('</', i)) {
      const m = /^<\/([a-z][a-z0-9]*)\s*>/.exec(source.slice(i));
      if (!m) {
        problem('malformed end tag');
        i += 2;
        continue;
      }
      const name = m[1]!;
      if (VOID.has(name)) problem(`</${name}>: a void element has no end tag`);
      else if (stack[stack.length - 1] !== name) problem(`</${name}> closes <${stack[stack.length - 1] ?? 'nothing'}> (open: ${stack.join(' > ')})`);
      else stack.pop();
      i += m[0].length;
      continue;
    }
    if (source[i] === '<') {
      const start = i;
      const m = /^<([a-z][a-z0-9]*)/.exec(source.slice(i));
      if (!m) {
        problem(`'<' that starts no tag: ${JSON.stringify(source.slice(i, i + 20))}`);
        i++;
        continue;
      }
      const name = m[1]!;
      i += m[0].length;
      const attrs = new Map<string, string>();
      for (;;) {
        const ws = /^\s*/.exec(source.slice(i))![0];
        i += ws.length;
        if (source[i] === '>') {
          i++;
          break;
        }
        if (source.startsWith('/>', i)) {
          if (!VOID.has(name)) problem(`<${name}/>: only void elements may be self-closed`);
          i += 2;
          break;
        }
        if (ws.length === 0) problem(`<${name}>: attributes must be separated by white space`);
        const a = /^([a-z][a-z0-9-]*)(="([^"]*)")?/.exec(source.slice(i));
        if (!a) {
          problem(`<${name}>: malformed attribute at ${JSON.stringify(source.slice(i, i + 20))}`);
          break;
        }
        i += a[0].length;
        const attr = a[1]!;
        const val = a[3] ?? '';
        if (attrs.has(attr)) problem(`<${name}>: attribute ${attr} given twice`);
        attrs.set(attr, val);
        if (val.includes('<') || val.includes('>')) problem(`<${name} ${attr}>: raw '<' or '>' in a value`);
        checkRefs(val, `<${name} ${attr}>`, start);
      }
      tags.set(name, (tags.get(name) ?? 0) + 1);
      if (FORBIDDEN.has(name)) problem(`<${name}>: loads a resource or runs code`, start);
      for (const [attr, val] of attrs) {
        if (attr === 'id') ids.push(val);
        if (attr === 'href') {
          links.push(val);
          if (!val.startsWith('#')) problem(`<${name} href="${val}">: a link out of the page`, start);
        }
        if (LOADING_ATTRS.has(attr) || attr.startsWith('on')) problem(`<${name} ${attr}>: loads something or runs a script`, start);
        if (attr === 'style' && /url\s*\(|@import/i.test(val)) problem(`<${name} style>: url() or @import`, start);
      }
      if (name === 'meta' && attrs.get('http-equiv')?.toLowerCase() === 'refresh') problem('<meta http-equiv="refresh">', start);
      const parent = stack[stack.length - 1];
      if (parent === 'p' && CLOSES_P.has(name)) problem(`<${name}> inside <p>: the parser would close the paragraph`, start);
      const allowed = PARENTS[name];
      if (allowed && !allowed.includes(parent ?? '')) problem(`<${name}> inside <${parent ?? 'nothing'}>`, start);
      if (!VOID.has(name)) stack.push(name);
      if (RAW_TEXT.has(name)) {
        const end = source.indexOf(`</${name}`, i);
        if (end < 0) {
          problem(`<${name}> is not closed`, start);
          break;
        }
        const content = source.slice(i, end);
        if (name === 'style' && /url\s*\(|@import/i.test(content)) problem('<style>: url() or @import', start);
        if (name === 'title') {
          checkRefs(content, '<title>', i);
          texts.push(content);
        }
        i = end;
      }
      continue;
    }
    const next = source.indexOf('<', i);
    const raw = source.slice(i, next < 0 ? source.length : next);
    checkRefs(raw, `text in <${stack[stack.length - 1] ?? 'nothing'}>`, i);
    if (raw.trim() !== '' && NO_TEXT.has(stack[stack.length - 1] ?? '')) problem(`text directly inside <${stack[stack.length - 1]}>: ${JSON.stringify(raw.slice(0, 30))}`);
    if (raw.trim() !== '' && stack.length === 0) problem('text outside the document element');
    texts.push(raw);
    i += raw.length;
  }
  if (stack.length > 0) problems.push(`unclosed at the end: ${stack.join(' > ')}`);
  const seen = new Set<string>();
  for (const id of ids) {
    if (id === '' || /\s/.test(id)) problems.push(`id ${JSON.stringify(id)} is empty or has white space`);
    if (seen.has(id)) problems.push(`id ${JSON.stringify(id)} is used twice`);
    seen.add(id);
  }
  for (const href of links) {
    if (href.startsWith('#') && !seen.has(decodeURIComponent(href.slice(1)))) problems.push(`link ${href} points at no id`);
  }
  const text = texts.join('').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
  return { problems, ids, links, tags, text };
}
