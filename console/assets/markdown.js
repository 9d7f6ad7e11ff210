// renderMarkdown turns a page's markdown into elements, built one by one
// with text nodes: no HTML in the markdown is ever parsed (a <script> in
// it is shown as the text it is), and a link or an image is a link only
// when its address is http, https or relative (javascript: and data: are
// shown as text). Pictures are links, not loaded: the console loads
// nothing from the crawled sites. Past maxRendered characters the rest is
// left for the raw view, so that a very long page does not hold the tab.

export const maxRendered = 200_000;

export function renderMarkdown(text) {
  const out = [];
  let src = text;
  if (src.length > maxRendered) {
    src = src.slice(0, maxRendered);
  }
  const lines = src.split("\n");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const fence = line.match(/^\s*(```+|~~~+)\s*([\w+-]*)/);
    if (fence) {
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence[1])) body.push(lines[i++]);
      i++;
      const code = el("code", body.join("\n"));
      if (fence[2]) code.dataset.language = fence[2];
      out.push(wrap("pre", code));
      continue;
    }
    const heading = line.match(/^(#{1,6})\s+(.*)$/);
    if (heading) {
      out.push(wrap(`h${Math.min(6, heading[1].length + 1)}`, ...inline(heading[2].replace(/\s+#+\s*$/, ""))));
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) {
      out.push(document.createElement("hr"));
      i++;
      continue;
    }
    if (/^\s*>/.test(line)) {
      const body = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) body.push(lines[i++].replace(/^\s*>\s?/, ""));
      out.push(wrap("blockquote", ...renderMarkdown(body.join("\n"))));
      continue;
    }
    const item = /^(\s*)([-*+]|\d+[.)])\s+/;
    if (item.test(line)) {
      const ordered = /\d/.test(line.match(item)[2]);
      const list = document.createElement(ordered ? "ol" : "ul");
      while (i < lines.length && (item.test(lines[i]) || (/^\s{2,}\S/.test(lines[i]) && list.lastChild))) {
        const m = lines[i].match(item);
        if (m) list.append(wrap("li", ...inline(lines[i].slice(m[0].length))));
        else list.lastChild.append(" ", ...inline(lines[i].trim()));
        i++;
      }
      out.push(list);
      continue;
    }
    if (/^\s*\|.*\|\s*$/.test(line)) {
      const rows = [];
      while (i < lines.length && /^\s*\|.*\|\s*$/.test(lines[i])) rows.push(lines[i++]);
      out.push(table(rows));
      continue;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() !== "" && !/^(#{1,6}\s|\s*```|\s*~~~|\s*>|\s*([-*+]|\d+[.)])\s|\s*\|)/.test(lines[i])) para.push(lines[i++]);
    if (!para.length) para.push(lines[i++]);
    out.push(wrap("p", ...inline(para.join(" "))));
  }
  if (text.length > maxRendered) {
    out.push(wrap("p", el("em", `The page goes on for ${text.length - maxRendered} more characters: see the markdown view or download it.`)));
  }
  return out;
}

function el(tag, text) {
  const e = document.createElement(tag);
  e.textContent = text;
  return e;
}

function wrap(tag, ...children) {
  const e = document.createElement(tag);
  e.append(...children);
  return e;
}

function table(rows) {
  const t = document.createElement("table");
  const cells = (row) => row.trim().replace(/^\||\|$/g, "").split(/(?<!\\)\|/).map((c) => c.trim().replace(/\\\|/g, "|"));
  rows.forEach((row, n) => {
    if (n === 1 && /^[\s|:-]+$/.test(row)) return;
    const tr = document.createElement("tr");
    for (const c of cells(row)) tr.append(wrap(n === 0 ? "th" : "td", ...inline(c)));
    t.append(tr);
  });
  return t;
}

// safeHref is the address of a link when it may be one: http, https, or
// relative without a scheme.
export function safeHref(href) {
  const h = href.trim();
  if (/^https?:\/\//i.test(h)) return h;
  if (/^[a-z][a-z0-9+.-]*:/i.test(h)) return null;
  return h;
}

// inline turns a line's code spans, links, pictures and emphasis into
// nodes; everything else stays text.
function inline(s) {
  const out = [];
  const re = /(`+)([\s\S]*?)\1|!?\[([^\]]*)\]\(([^()\s]*(?:\([^()\s]*\)[^()\s]*)*)(?:\s+"[^"]*")?\)|\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*|_([^_\s][^_]*)_/g;
  let last = 0;
  for (const m of s.matchAll(re)) {
    if (m.index > last) out.push(document.createTextNode(unescape(s.slice(last, m.index))));
    if (m[1]) out.push(el("code", m[2]));
    else if (m[4] !== undefined) {
      const picture = m[0].startsWith("!");
      const href = safeHref(m[4]);
      const label = picture ? `picture: ${m[3] || m[4]}` : m[3];
      if (href === null) out.push(document.createTextNode(m[0]));
      else {
        const a = document.createElement("a");
        a.href = href;
        a.rel = "noopener noreferrer nofollow";
        a.target = "_blank";
        a.append(...(picture ? [document.createTextNode(label)] : inline(label)));
        out.push(a);
      }
    } else if (m[5]) out.push(wrap("strong", ...inline(m[5])));
    else out.push(wrap("em", ...inline(m[6] || m[7])));
    last = m.index + m[0].length;
  }
  if (last < s.length) out.push(document.createTextNode(unescape(s.slice(last))));
  return out;
}

function unescape(s) {
  return s.replace(/\\([\\`*_{}\[\]()#+\-.!|<>])/g, "$1");
}
