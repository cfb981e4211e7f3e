/**
 * The link checker over README.md and every docs/**\/*.md: relative links resolve to files, `#anchors`
 * resolve to headings of the target (GitHub's slug rules, as a code host renders them), and nothing
 * links outside the repository's own docs (the specification files are not part of the repository).
 */
import fs from 'node:fs';
import path from 'node:path';
import GithubSlugger from 'github-slugger';
import MarkdownIt from 'markdown-it';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

function markdownFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return markdownFiles(full);
    return e.name.endsWith('.md') ? [full] : [];
  });
}

const files = [path.join(root, 'README.md'), ...markdownFiles(path.join(root, 'docs'))];
const md = new MarkdownIt({ html: true });
type Tokens = ReturnType<typeof md.parse>;

const inlineText = (t: Tokens[number]) =>
  (t.children ?? [])
    .filter((c) => c.type === 'text' || c.type === 'code_inline')
    .map((c) => c.content)
    .join('');

/** Every heading's GitHub anchor, plus explicit `<a id>`/`<a name>` targets. */
function anchorsOf(file: string, cache = new Map<string, Set<string>>()): Set<string> {
  const hit = cache.get(file);
  if (hit) return hit;
  const source = fs.readFileSync(file, 'utf8');
  const slugger = new GithubSlugger();
  const tokens = md.parse(source, {});
  const anchors = new Set<string>();
  tokens.forEach((t, i) => {
    if (t.type === 'heading_open') anchors.add(slugger.slug(inlineText(tokens[i + 1]!)));
  });
  for (const m of source.matchAll(/<a (?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  cache.set(file, anchors);
  return anchors;
}

/** Every link of a file: [href, line]. */
function linksOf(file: string): [string, number][] {
  const tokens = md.parse(fs.readFileSync(file, 'utf8'), {});
  const out: [string, number][] = [];
  for (const t of tokens) {
    for (const c of t.children ?? [])
      if (c.type === 'link_open') out.push([String(c.attrGet('href') ?? ''), (t.map?.[0] ?? 0) + 1]);
  }
  return out;
}

const FORBIDDEN = /(^|\/)(api-spec|contract|named-areas)\.md|\.\.\/shared\b|^\/work\//;
/** Absolute paths the service serves itself (a guide may link to the API reference). */
const SERVED = /^\/(docs|api\/v1|dashboard|healthz|readyz|metrics)(\/|$|#|\?)/;

describe('docs links', () => {
  it('checks README.md and the guides', () => {
    expect(files.map((f) => path.relative(root, f))).toEqual(
      expect.arrayContaining(['README.md', 'docs/guides/index.md', 'docs/guides/quickstart.md']),
    );
  });

  describe.each(files.map((f) => [path.relative(root, f), f] as const))('%s', (_name, file) => {
    it('has no broken link or anchor and none into the specification', () => {
      const cache = new Map<string, Set<string>>();
      const problems: string[] = [];
      for (const [href, line] of linksOf(file)) {
        const where = `${path.relative(root, file)}:${line} ${href}`;
        if (FORBIDDEN.test(href)) {
          problems.push(`${where}: links outside the repository's docs`);
          continue;
        }
        if (/^[a-z][a-z0-9+.-]*:/i.test(href) || SERVED.test(href)) continue;
        const [target, hash] = href.split('#') as [string, string | undefined];
        const targetFile = target === '' ? file : path.resolve(path.dirname(file), decodeURI(target));
        if (!targetFile.startsWith(root) || !fs.existsSync(targetFile)) {
          problems.push(`${where}: no such file`);
          continue;
        }
        if (hash !== undefined && targetFile.endsWith('.md') && !anchorsOf(targetFile, cache).has(hash))
          problems.push(`${where}: no heading with this anchor`);
      }
      expect(problems).toEqual([]);
    });
  });
});
