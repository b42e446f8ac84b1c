#!/usr/bin/env python3
"""Extract a built static site from a bare git repo into $CORPUS_DIR/<name>.

Keeps only .html/.htm/.xml/.txt files, selects at most --max HTML pages:
home page first, then pages reachable by links in BFS order, giving priority
to pages whose URL looks like a maturity signal (pricing, security, docs, ...).

A client-rendered site (a React/Vue/Svelte build whose pages are written by
script) needs its bundles: --assets js,mjs,json,css keeps every file with those
extensions as well (and 404.html, which static hosts answer for unknown paths
and single-page apps use to route deep links). Images and fonts are never kept.
(Derived from the shared calibration extractor; --assets is this project's addition.)
"""
import argparse, collections, html.parser, os, posixpath, re, shutil, subprocess, sys, urllib.parse

KEYWORDS = re.compile(r'(pricing|price|plans|about|security|trust|compliance|privacy|terms|legal|docs?|documentation|'
                      r'guide|help|faq|changelog|release|news|blog|press|careers?|jobs|hiring|team|customers?|case-stud|'
                      r'powered-by|testimonial|status|integrations?|partners?|api|download|roadmap|contact|community|'
                      r'events|cve|audits?|sla|support|features?|enterprise|get-started|quickstart)', re.I)
PAGE_EXT = ('.html', '.htm')
EXTRA_NAMES = re.compile(r'(^|/)(robots\.txt|sitemap[^/]*\.xml|atom\.xml|feed\.xml|rss\.xml|index\.xml|humans\.txt|security\.txt)$')


class LinkParser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links = []

    def handle_starttag(self, tag, attrs):
        if tag in ('a', 'link', 'area', 'frame', 'iframe'):
            for k, v in attrs:
                if k == 'href' and v and tag != 'link':
                    self.links.append(v)
                if k == 'src' and v and tag in ('frame', 'iframe'):
                    self.links.append(v)


def links_of(text):
    p = LinkParser()
    try:
        p.feed(text)
    except Exception:
        pass
    return p.links


SSI = re.compile(r'<!--#include\s+(virtual|file)="([^"]+)"\s*-->')


def resolve_ssi(root, relpath, text, depth=0):
    if depth > 6:
        return text
    def rep(m):
        kind, target = m.group(1), m.group(2).split("?")[0]
        if kind == 'virtual' and target.startswith('/'):
            p = target.lstrip('/')
        else:
            p = posixpath.normpath(posixpath.join(posixpath.dirname(relpath), target))
        fp = os.path.join(root, p)
        if os.path.isfile(fp):
            with open(fp, encoding='utf-8', errors='replace') as f:
                return resolve_ssi(root, p, f.read(), depth + 1)
        return m.group(0)
    return SSI.sub(rep, text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--git-dir', required=True)
    ap.add_argument('--ref', default='HEAD')
    ap.add_argument('--subdir', default='')
    ap.add_argument('--name', required=True)
    ap.add_argument('--max', type=int, default=300)
    ap.add_argument('--exclude', default=None, help='regex on site-relative path to skip')
    ap.add_argument('--host', action='append', default=[], help='original host(s); absolute links to them count as internal')
    ap.add_argument('--ssi', action='store_true', help='resolve Apache SSI includes')
    ap.add_argument('--start', default='index.html')
    ap.add_argument('--extra-ext', default='', help='comma list of extra extensions to stage (e.g. htm for SSI includes)')
    ap.add_argument('--force', action='append', default=[], help='path to always keep')
    ap.add_argument('--section-cap', type=int, default=0, help='max pages per top-level folder (0 = no cap)')
    ap.add_argument('--url-prefix', default='', help='site is served under this path prefix (e.g. /website/); output goes under it')
    ap.add_argument('--page-exclude', default=None, help='regex: staged (e.g. for SSI) but never kept as a page')
    ap.add_argument('--assets', default='', help='comma list of asset extensions kept whole (client-rendered sites: js,mjs,json,css)')
    a = ap.parse_args()

    stage = os.path.join(os.environ.get('STAGE_DIR', 'stage'), a.name)
    out = os.path.join(os.environ.get('CORPUS_DIR', 'corpus'), a.name)
    shutil.rmtree(stage, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(stage)
    sub = a.subdir.strip('/')
    treeish = f'{a.ref}:{sub}' if sub else a.ref
    assets = [e.lower() for e in a.assets.split(',') if e]
    exts = ['html', 'htm', 'xml', 'txt'] + [e for e in a.extra_ext.split(',') if e] + assets
    # list the tree and read only wanted blobs (some big blobs may be absent from the snapshot)
    ls = subprocess.run(['git', '--git-dir', a.git_dir, 'ls-tree', '-r', '-z', treeish], capture_output=True, check=True).stdout
    wanted = []
    for ent in ls.split(b'\0'):
        if not ent:
            continue
        meta, name = ent.split(b'\t', 1)
        mode, typ, sha = meta.split()
        name = name.decode('utf-8', 'replace')
        if typ != b'blob':
            continue
        if not (name.lower().rsplit('.', 1)[-1] in exts or EXTRA_NAMES.search(name)):
            continue
        if a.exclude and re.search(a.exclude, name):
            continue
        wanted.append((sha.decode(), name))
    cat = subprocess.Popen(['git', '--git-dir', a.git_dir, 'cat-file', '--batch'], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    n_staged = 0
    missing = 0
    for sha, name in wanted:
        cat.stdin.write((sha + '\n').encode()); cat.stdin.flush()
        header = cat.stdout.readline().split()
        if len(header) < 3 or header[1] == b'missing':
            missing += 1
            continue
        size = int(header[2])
        data = cat.stdout.read(size); cat.stdout.read(1)
        dest = os.path.join(stage, name)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, 'wb') as f:
            f.write(data)
        n_staged += 1
    cat.stdin.close(); cat.wait()
    if missing:
        print(f'warning: {missing} wanted blobs missing from snapshot', file=sys.stderr)

    allfiles = set()
    for dp, dn, fn in os.walk(stage):
        for f in fn:
            allfiles.add(os.path.relpath(os.path.join(dp, f), stage))
    page_ext = ('.html',) if a.ssi else PAGE_EXT
    pages = {p for p in allfiles if p.lower().endswith(page_ext) and not (a.page_exclude and re.search(a.page_exclude, p))}

    prefix = a.url_prefix.strip('/')
    def url_to_file(path):
        path = urllib.parse.unquote(path).lstrip('/')
        if prefix:
            if path == prefix:
                path = ''
            elif path.startswith(prefix + '/'):
                path = path[len(prefix) + 1:]
            else:
                return None
        cands = []
        if path == '' or path.endswith('/'):
            cands.append(path + 'index.html')
        else:
            cands += [path, path + '.html', path + '/index.html']
        for c in cands:
            c = posixpath.normpath(c) if c else c
            if c in pages:
                return c
        return None

    hosts = {h.lower() for h in a.host}

    def read(p):
        with open(os.path.join(stage, p), encoding='utf-8', errors='replace') as f:
            t = f.read()
        if a.ssi:
            t = resolve_ssi(stage, p, t)
        return t

    start = a.start
    if start not in pages:
        print('start page missing', start, file=sys.stderr)
        sys.exit(1)
    depth = {start: 0}
    order = [start]
    q = collections.deque([start])
    while q:
        p = q.popleft()
        if depth[p] >= 6:
            continue
        base_url = ('/' + prefix + '/' + p) if prefix else ('/' + p)
        for href in links_of(read(p)):
            href = href.strip()
            if href.startswith(('mailto:', 'javascript:', 'tel:', '#', 'data:')):
                continue
            u = urllib.parse.urlsplit(urllib.parse.urljoin('http://site.invalid' + base_url, href))
            host = (u.hostname or '').lower()
            if host != 'site.invalid' and host not in hosts:
                continue
            f = url_to_file(u.path)
            if f and f not in depth:
                depth[f] = depth[p] + 1
                order.append(f)
                q.append(f)
    # selection
    chosen = []
    seen = set()
    per_section = collections.Counter()
    def take(p, capped=True):
        if p in seen or len(chosen) >= a.max:
            return
        sec = p.split('/')[0] if '/' in p else ''
        if capped and a.section_cap and sec and per_section[sec] >= a.section_cap:
            return
        seen.add(p)
        per_section[sec] += 1
        chosen.append(p)
    take(start)
    for p in a.force:
        if p in pages:
            take(p)
    for p in order:
        if depth[p] <= 1:
            take(p, capped=False)
    for p in sorted(order, key=lambda x: depth[x]):
        if KEYWORDS.search(p) and depth[p] <= 3:
            take(p)
    for p in order:
        take(p)
    # if BFS reached few pages, fill with unreachable pages that look relevant
    if len(chosen) < a.max:
        for p in sorted(pages - seen, key=lambda x: (not KEYWORDS.search(x), x.count('/'), x)):
            take(p)

    os.makedirs(out)
    out_root = out
    out = os.path.join(out, prefix) if prefix else out
    for p in chosen:
        dest = os.path.join(out, p)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        if a.ssi:
            with open(dest, 'w', encoding='utf-8') as f:
                f.write(read(p))
        else:
            shutil.copyfile(os.path.join(stage, p), dest)
    extras = [p for p in allfiles if EXTRA_NAMES.search(p) and p.count('/') == 0]
    if assets:
        extras += [p for p in allfiles if p.lower().rsplit('.', 1)[-1] in assets and not (a.exclude and re.search(a.exclude, p))]
        if '404.html' in pages and '404.html' not in seen:
            extras.append('404.html')
    for p in extras:
        dest = os.path.join(out, p)
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        shutil.copyfile(os.path.join(stage, p), dest)
    size = sum(os.path.getsize(os.path.join(dp, f)) for dp, dn, fn in os.walk(out_root) for f in fn)
    print(f'staged={n_staged} pages_total={len(pages)} reachable={len(order)} kept_pages={len(chosen)} extras={len(extras)} size={size/1e6:.2f}MB')
    with open(os.path.join(os.environ.get('STAGE_DIR', 'stage'), f'{a.name}.kept.txt'), 'w') as f:
        for p in chosen:
            f.write(f'{depth.get(p, -1)}\t{p}\n')


if __name__ == '__main__':
    main()
