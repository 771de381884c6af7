"""A small DOM of banjia's HTML reports built with the standard library's html.parser, and the checks the
report tests share (tables, SVG text by class, CSS rules, round ticks)."""
import html.parser
import math
import re

VOID = {"meta", "br", "hr", "img", "input", "link", "col", "area", "base", "wbr", "source"}


class Node:
    def __init__(self, tag, attrs, parent=None):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children = []
        self.text_parts = []

    def text(self):
        return "".join(p if isinstance(p, str) else p.text() for p in self.text_parts)

    def iter(self, tag=None):
        for c in self.children:
            if tag is None or c.tag == tag:
                yield c
            yield from c.iter(tag)

    def classes(self):
        return self.attrs.get("class", "").split()

    def find_all(self, tag=None, cls=None):
        return [n for n in self.iter(tag) if cls is None or cls in n.classes()]


class _Builder(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.cur)
        self.cur.children.append(node)
        self.cur.text_parts.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        node = Node(tag, attrs, self.cur)
        self.cur.children.append(node)

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.text_parts.append(data)


def parse(text):
    b = _Builder()
    b.feed(text)
    b.close()
    return b.root


def own_text(node):
    """Text of a node without the text of its <title> children (SVG tooltips)."""
    return "".join(p if isinstance(p, str) else ("" if p.tag == "title" else own_text(p)) for p in node.text_parts)


def tables(root):
    """Each <table> as (header cells [(text, classes)], rows [(tr classes, [(text, classes)])])."""
    out = []
    for t in root.iter("table"):
        trs = list(t.iter("tr"))
        header = [(c.text(), c.classes()) for c in trs[0].iter("th")]
        rows = [(tr.classes(), [(c.text(), c.classes()) for c in tr.iter("td")]) for tr in trs[1:]]
        out.append((header, rows))
    return out


def table_with_header(root, first_header):
    for header, rows in tables(root):
        if header and header[0][0] == first_header:
            return header, rows
    raise AssertionError(f"no table whose first column is {first_header!r}")


def css_rules(root):
    """{selector: declarations} of the page's <style> (selectors split at commas)."""
    css = "".join(s.text() for s in root.iter("style"))
    rules = {}
    for sel, body in re.findall(r"([^{}]+)\{([^{}]*)\}", css):
        for s in sel.split(","):
            rules[s.strip()] = rules.get(s.strip(), "") + body + ";"
    return rules


def is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def is_decade(value):
    k = math.log10(value)
    return abs(k - round(k)) < 1e-9


def is_one_two_five(value):
    """value == m * 10^k with m in {1, 2, 5}."""
    k = math.floor(math.log10(value) + 1e-12)
    m = value / 10 ** k
    return any(abs(m - n) < 1e-9 for n in (1, 2, 5, 10))


def svg_texts(svg, cls):
    return [own_text(t) for t in svg.find_all("text", cls)]
