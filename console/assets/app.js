// The crawler's console: a page of the API process that stands only on
// the public HTTP API, with the API key the person signs in with (kept in
// this tab's sessionStorage, never sent anywhere else). Everything a
// crawl's pages say (titles, URLs, markdown) is shown as text or built
// into elements one by one: nothing from the API is ever parsed as HTML.

import { renderMarkdown } from "./markdown.js";

const keyStore = "crawler-console-key";
const view = document.getElementById("view");
const nav = document.getElementById("nav");
const who = document.getElementById("who");

// The statuses a crawl can have, as GET /crawls filters them.
const statuses = ["queued", "running", "succeeded", "failed", "aborted", "timed_out"];

// h builds an element: attrs are attributes, but "text" sets its text,
// "on<event>" adds a listener and "class" its class; children are
// elements or strings (added as text).
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "text") el.textContent = String(v);
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

// APIError is an answer of the API other than 2xx, or no answer at all
// (status 0).
class APIError extends Error {
  constructor(status, body, retryAfter) {
    // The service's shape ({error: {code, message, details}}) or
    // Firecrawl's ({success: false, error, details}) under /v1 and /v2.
    const e = body && typeof body.error === "object" ? body.error : null;
    const text = e ? e.message : body && typeof body.error === "string" ? body.error : "";
    super(text || (status === 0 ? "The API cannot be reached." : `The API answered ${status}.`));
    this.status = status;
    this.code = e && e.code;
    this.details = (e ? e.details : body && Array.isArray(body.details) ? body.details : null) || [];
    this.retryAfter = retryAfter;
  }
}

// api calls the API with the signed-in key and returns its JSON.
// generation counts the views rendered: a view whose reads come back
// after another view has started is stale, and must not replace it.
let generation = 0;

// Stale is thrown by a read a newer view made out of date.
class Stale extends Error {}

// fresh throws Stale when a view other than the one of generation gen has
// started since.
function fresh(gen) {
  if (gen !== generation) throw new Stale();
}

async function api(method, path, body) {
  const gen = generation;
  const headers = { Accept: "application/json" };
  const key = sessionStorage.getItem(keyStore);
  if (key) headers.Authorization = "Bearer " + key;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let res;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch {
    throw new APIError(0);
  }
  let data = null;
  const text = await res.text();
  if (text) {
    try { data = JSON.parse(text); } catch { data = null; }
  }
  if (!res.ok) {
    const err = new APIError(res.status, data, res.headers.get("Retry-After"));
    if (res.status === 401 && path !== "/me") {
      sessionStorage.removeItem(keyStore);
      location.hash = "#/signin?expired=1";
    }
    throw err;
  }
  // What a view reads (GET) is dropped when the reader moved on to
  // another view while it was on its way; what it changes is not.
  if (method === "GET") fresh(gen);
  return data;
}

// problem is the notice for an error of the API.
function problem(err) {
  let msg = err.message;
  if (err.status === 429) msg = `Too many requests: the API asks to wait ${err.retryAfter || "a few"} seconds before trying again.`;
  if (err.status === 404) msg = "Not found: it may have been deleted, or it belongs to another team.";
  return h("div", { class: "notice bad", role: "alert" }, msg);
}

function show(...children) {
  view.replaceChildren(...children);
}

// when formats a time of the API for a person.
function when(t) {
  return t ? new Date(t).toLocaleString() : "—";
}

function seconds(n) {
  if (n == null) return "—";
  const m = Math.floor(n / 60), s = n % 60;
  return m ? `${m} min ${s} s` : `${s} s`;
}

// route is the view the address's hash names, with its parameters.
function route() {
  const [path, query] = location.hash.replace(/^#/, "").split("?");
  return { parts: (path || "/crawls").split("/").filter(Boolean), params: new URLSearchParams(query || "") };
}

let stopLive = () => {};

// deployment is what /console/config.json says: the Temporal UI and
// namespace the crawls' workflows run in.
let deployment = null;
async function config() {
  if (!deployment) {
    deployment = await fetch("/console/config.json").then((r) => r.json()).catch(() => ({}));
  }
  return deployment;
}

async function render() {
  generation++;
  stopLive();
  stopLive = () => {};
  const { parts, params } = route();
  const key = sessionStorage.getItem(keyStore);
  if (!key || parts[0] === "signin") {
    nav.replaceChildren();
    who.textContent = "";
    return signIn(params);
  }
  nav.replaceChildren(
    h("a", { href: "#/crawls" }, "Crawls"),
    h("a", { href: "#/new" }, "New crawl"),
    h("a", { href: "#/scrape" }, "Scrape"),
    h("a", { href: "#/map" }, "Map"),
    h("a", { href: "#/schedules" }, "Schedules"),
    h("a", { href: "#/usage" }, "Usage"),
    h("a", { href: "#/signout", onclick: signOut }, "Sign out"),
  );
  try {
    if (!who.textContent) {
      const me = await api("GET", "/me");
      who.textContent = `Team ${me.team.name}`;
    }
    if (parts[0] === "new") return await newCrawl();
    if (parts[0] === "scrape") return scrapeView();
    if (parts[0] === "map") return mapView();
    if (parts[0] === "schedules") return await schedulesView(params);
    if (parts[0] === "usage") return await usageView();
    if (parts[0] === "crawls" && parts[1] && parts[2] === "log") return await crawlLog(parts[1], params);
    if (parts[0] === "crawls" && parts[1] && parts[2] === "pages" && parts[3]) return await onePage(parts[1], Number(parts[3]), params);
    if (parts[0] === "crawls" && parts[1] && parts[2] === "pages") return await crawlPages(parts[1], params);
    if (parts[0] === "crawls" && parts[1]) return await crawlView(parts[1]);
    return await crawlList(params);
  } catch (err) {
    if (err instanceof Stale) return;
    if (err instanceof APIError) show(h("h1", { text: "Something went wrong" }), problem(err));
    else throw err;
  }
}

function signOut(e) {
  e.preventDefault();
  sessionStorage.removeItem(keyStore);
  who.textContent = "";
  location.hash = "#/signin";
}

function signIn(params) {
  const input = h("input", { type: "password", id: "key", name: "key", autocomplete: "off", required: true, "aria-describedby": "key-hint" });
  const msg = h("div", { "aria-live": "polite" });
  if (params.get("expired")) msg.append(h("div", { class: "notice bad", role: "alert" }, "The API no longer accepts the key this tab used: sign in again."));
  const form = h("form", { class: "signin", onsubmit: async (e) => {
    e.preventDefault();
    sessionStorage.setItem(keyStore, input.value.trim());
    try {
      const me = await api("GET", "/me");
      who.textContent = `Team ${me.team.name}`;
      location.hash = "#/crawls";
    } catch (err) {
      sessionStorage.removeItem(keyStore);
      msg.replaceChildren(err.status === 401
        ? h("div", { class: "notice bad", role: "alert" }, "This key was not accepted: check it, or ask the service's operator for one (crawler apikey create).")
        : problem(err));
    }
  } },
  h("div", { class: "field" },
    h("label", { for: "key" }, "API key"),
    input,
    h("span", { class: "hint", id: "key-hint" }, "Kept in this tab only; closing the tab signs you out.")),
  h("button", { class: "primary", type: "submit" }, "Sign in"));
  show(h("h1", { text: "Sign in" }), msg, form);
  input.focus();
}

async function crawlList(params) {
  const status = params.get("status") || "";
  const page = Number(params.get("page") || 1);
  const q = new URLSearchParams({ page: String(page), limit: "20" });
  if (status) q.set("status", status);
  const data = await api("GET", "/crawls?" + q);
  const filter = h("select", { id: "status-filter", onchange: (e) => {
    const p = new URLSearchParams(e.target.value ? { status: e.target.value } : {});
    location.hash = "#/crawls?" + p;
  } }, h("option", { value: "" }, "every status"), statuses.map((s) => h("option", { value: s, selected: s === status }, s)));
  const rows = data.results.map((c) => h("tr", {},
    h("td", {}, h("a", { href: `#/crawls/${c.id}` }, h("span", { class: `status ${c.status}` }, c.status))),
    h("td", { class: "url" }, c.startUrl),
    h("td", {}, String(c.totalPages)),
    h("td", {}, when(c.createdAt)),
    h("td", {}, seconds(c.durationInSeconds)),
    h("td", {}, c.origin)));
  const pager = h("div", { class: "pager row" },
    page > 1 ? h("a", { href: `#/crawls?${new URLSearchParams({ ...(status && { status }), page: String(page - 1) })}` }, "Newer") : null,
    h("span", {}, `Page ${data.page} of ${Math.max(1, data.totalPages)} (${data.totalResults} crawls)`),
    data.next ? h("a", { href: `#/crawls?${new URLSearchParams({ ...(status && { status }), page: String(page + 1) })}` }, "Older") : null);
  show(h("h1", { text: "Crawls" }),
    h("div", { class: "row" }, h("label", { for: "status-filter" }, "Status"), filter),
    rows.length ? h("table", {}, h("thead", {}, h("tr", {}, ["Status", "Start URL", "Pages", "Started", "Duration", "Origin"].map((t) => h("th", { scope: "col" }, t)))), h("tbody", {}, rows))
      : h("p", {}, "No crawls yet. ", h("a", { href: "#/new" }, "Start one.")),
    pager);
}

// The options of POST /crawls the form leaves out: origin is always
// "web" here, and the older request shape's fields are not offered.
const notOffered = new Set(["origin", "startUrl"]);

async function newCrawl() {
  const gen = generation;
  const spec = await fetch("/openapi.json").then((r) => r.json());
  fresh(gen);
  const schema = spec.components.schemas.CreateCrawlCurrent;
  const fields = [];
  const inputs = new Map();
  const field = (name, prop, control) => {
    const errId = `err-${name}`, hintId = `hint-${name}`;
    inputs.set(name, { prop, control, err: h("span", { class: "error", id: errId, "aria-live": "polite" }) });
    control.id = `f-${name}`;
    control.setAttribute("aria-describedby", `${hintId} ${errId}`);
    const hint = [prop.description || "", describeRange(prop)].filter(Boolean).join(" ");
    return h("div", { class: "field", "data-field": name },
      h("label", { for: control.id }, name),
      control,
      h("span", { class: "hint", id: hintId }, hint),
      inputs.get(name).err);
  };
  fields.push(field("startUrl", schema.properties.startUrl, h("input", { type: "url", required: true, placeholder: "https://example.com/docs/" })));
  for (const [name, raw] of Object.entries(schema.properties)) {
    if (notOffered.has(name)) continue;
    fields.push(field(name, raw, controlFor(raw, spec)));
  }
  const summary = h("div", { "aria-live": "polite" });
  const form = h("form", { novalidate: true, onsubmit: async (e) => {
    e.preventDefault();
    for (const f of inputs.values()) f.err.textContent = "";
    const body = { origin: "web" };
    for (const [name, f] of inputs) {
      const v = valueOf(f.control, f.prop);
      if (v !== undefined) body[name] = v;
    }
    try {
      const crawl = await api("POST", "/crawls", body);
      location.hash = `#/crawls/${crawl.id}`;
    } catch (err) {
      if (!(err instanceof APIError)) throw err;
      summary.replaceChildren(problem(err));
      let first = null;
      for (const d of err.details) {
        const f = inputs.get(String(d.field).replace(/\[\d+\]$/, ""));
        if (f) {
          f.err.textContent = d.message;
          first = first || f.control;
        } else {
          summary.append(h("div", { class: "error" }, `${d.field}: ${d.message}`));
        }
      }
      if (first) first.focus();
    }
  } }, fields, h("button", { class: "primary", type: "submit" }, "Start the crawl"));
  show(h("h1", { text: "New crawl" }), h("p", {}, "Every option of POST /crawls; empty fields take their defaults. The crawl is recorded as started from the web."), summary, form);
}

function describeRange(p) {
  const parts = [];
  if (p.minimum !== undefined) parts.push(`from ${p.minimum}`);
  if (p.maximum !== undefined) parts.push(`to ${p.maximum}`);
  if (p.default !== undefined && p.default !== "") parts.push(`default ${JSON.stringify(p.default)}`);
  if (p.maxItems !== undefined) parts.push(`one per line, at most ${p.maxItems}`);
  return parts.length ? `(${parts.join(", ")})` : "";
}

function types(p) {
  return [].concat(p.type || []);
}

// controlFor is the form control for an option of the request's schema.
function controlFor(p, spec) {
  const t = types(p);
  if (p.enum) {
    return h("select", {}, h("option", { value: "" }, p.default !== undefined ? `default (${p.default})` : "—"),
      p.enum.filter((v) => v !== null).map((v) => h("option", { value: v }, v)));
  }
  if (t.includes("boolean") && !t.includes("object")) {
    return h("select", {}, h("option", { value: "" }, `default (${p.default === undefined ? "off" : p.default ? "on" : "off"})`),
      h("option", { value: "true" }, "on"), h("option", { value: "false" }, "off"));
  }
  if (t.includes("integer")) {
    return h("input", { type: "number", step: "1", min: p.minimum, max: p.maximum, placeholder: p.default ?? "" });
  }
  if (t.includes("array")) {
    if (p.items && p.items.enum) {
      return h("select", { multiple: true, size: Math.min(8, p.items.enum.length) }, p.items.enum.map((v) => h("option", { value: v }, v)));
    }
    return h("textarea", { rows: 3 });
  }
  if (p.anyOf || t.includes("object")) {
    return h("textarea", { rows: 3, placeholder: "JSON" });
  }
  return t.includes("string") && p.maxLength > 2048 ? h("textarea", { rows: 3 }) : h("input", { type: "text" });
}

// valueOf is the option's value in the request (undefined: left out),
// as the person typed it: the API checks it and names what it refuses.
function valueOf(control, p) {
  const t = types(p);
  if (control.multiple) {
    const picked = [...control.selectedOptions].map((o) => o.value);
    return picked.length ? picked : undefined;
  }
  const raw = control.value.trim();
  if (raw === "") return undefined;
  if (p.enum) return raw;
  if (t.includes("boolean") && !t.includes("object")) return raw === "true";
  if (t.includes("integer")) return /^-?\d+$/.test(raw) ? Number(raw) : raw;
  if (t.includes("array")) return raw.split("\n").map((s) => s.trim()).filter(Boolean);
  if (p.anyOf || t.includes("object")) {
    try { return JSON.parse(raw); } catch { return raw; }
  }
  return raw;
}

// steering is a crawl's controls: pause, resume and abort buttons, and a
// form for a new page limit and an added excluded path. Each shows the
// API's answer in answer (a refused change lists the fields it named),
// then refresh redraws the crawl; current is the crawl as last read.
function steering(id, current, answer, refresh) {
  const steer = async (label, method, path, body) => {
    try {
      const c = await api(method, path, body);
      answer.replaceChildren(h("div", { class: "notice", role: "status" }, `${label}: the API answered with status ${c && c.status ? c.status : "ok"}.`));
      await refresh();
    } catch (err) {
      if (!(err instanceof APIError)) throw err;
      const notice = problem(err);
      if (err.details.length) notice.append(h("ul", {}, err.details.map((d) => h("li", {}, `${d.field}: ${d.message}`))));
      answer.replaceChildren(notice);
    }
  };
  const limit = h("input", { type: "number", id: "new-limit", min: 1, max: 10000, step: 1 });
  const exclusion = h("input", { type: "text", id: "new-exclusion", placeholder: "/archive/**" });
  const controls = h("div", { class: "row" },
    h("button", { id: "pause", onclick: () => steer("Pause", "POST", `/crawls/${id}/pause`) }, "Pause"),
    h("button", { id: "resume", onclick: () => steer("Resume", "POST", `/crawls/${id}/resume`) }, "Resume"),
    h("button", { id: "abort", class: "danger", onclick: () => steer("Abort", "POST", `/crawls/${id}/abort`) }, "Abort"));
  // The ranges are the API's to enforce: the form does not validate, so
  // that a refused value gets the API's answer.
  const form = h("form", { class: "row", novalidate: true, onsubmit: (e) => {
    e.preventDefault();
    const patch = {};
    if (limit.value) patch.maxResults = /^\d+$/.test(limit.value) ? Number(limit.value) : limit.value;
    if (exclusion.value.trim()) patch.excludePaths = [...(current().excludePaths || []), exclusion.value.trim()];
    steer("Change", "PATCH", `/crawls/${id}`, patch);
  } },
  h("label", { for: "new-limit" }, "Page limit"), limit,
  h("label", { for: "new-exclusion" }, "Add an excluded path"), exclusion,
  h("button", { type: "submit" }, "Apply"));
  return [controls, form];
}

async function crawlView(id) {
  const figures = h("div", { class: "figures" });
  const bar = h("div", { class: "progress", role: "progressbar", "aria-label": "Pages stored against the crawl's limit", "aria-valuemin": "0" }, h("div"));
  const head = h("div");
  const answer = h("div", { "aria-live": "polite" });
  const chart = h("div");
  const samples = [];
  let crawl = await api("GET", `/crawls/${id}`);

  const [controls, more] = steering(id, () => crawl, answer, () => refresh());

  const draw = () => {
    const p = crawl.progress || {};
    const stored = p.stored ?? crawl.totalPages;
    const limitOf = crawl.maxResults || null;
    head.replaceChildren(
      h("h1", {}, "Crawl of ", h("span", { class: "url" }, crawl.startUrl)),
      h("p", {}, h("span", { class: `status ${crawl.status}`, id: "crawl-status" }, crawl.status), crawl.paused ? " (paused)" : "",
        ` · started ${when(crawl.createdAt)} · running for ${seconds(crawl.durationInSeconds)} · origin ${crawl.origin}`));
    const last = samples.length > 1 ? samples[samples.length - 1] : null, first = samples.length > 1 ? samples[Math.max(0, samples.length - 11)] : null;
    const rate = last && last.t > first.t ? ((last.stored - first.stored) / ((last.t - first.t) / 1000)).toFixed(1) : "—";
    figures.replaceChildren(...[["stored", stored], ["queued", p.queued], ["in progress", p.inProgress], ["failed", p.failed], ["skipped", p.skipped], ["duplicates", p.duplicates], ["pages a second", rate]]
      .map(([label, v]) => h("div", { class: "figure", "data-figure": label }, h("b", {}, v ?? "—"), label)));
    const share = limitOf ? Math.min(100, (100 * stored) / limitOf) : crawl.status === "running" || crawl.status === "queued" ? 0 : 100;
    bar.firstChild.style.width = `${share}%`;
    bar.setAttribute("aria-valuemax", String(limitOf || stored || 1));
    bar.setAttribute("aria-valuenow", String(stored));
    chart.replaceChildren(lineChart(samples));
  };
  const refresh = async () => {
    crawl = await api("GET", `/crawls/${id}`);
    samples.push({ t: Date.now(), stored: crawl.progress ? crawl.progress.stored : crawl.totalPages });
    draw();
  };
  samples.push({ t: Date.now(), stored: crawl.progress ? crawl.progress.stored : crawl.totalPages });
  draw();
  const gen = generation;
  const dep = await config();
  fresh(gen);
  const workflow = dep.temporalUI
    ? h("a", { href: `${dep.temporalUI}/namespaces/${encodeURIComponent(dep.namespace || "default")}/workflows/crawl-${encodeURIComponent(id)}`, target: "_blank", rel: "noopener noreferrer", id: "temporal-link" }, "Its workflow in the Temporal UI")
    : null;
  const fetched = h("span", { "aria-live": "polite" });
  const whole = h("button", { id: "download-all", onclick: () => downloadCrawl(id, fetched) }, "Download every page (JSONL)");
  show(head, bar, figures, chart, controls, more, answer,
    h("p", { class: "row" }, h("a", { href: `#/crawls/${id}/pages` }, "Pages"), h("a", { href: `#/crawls/${id}/log` }, "Log"),
      h("a", { href: `#/crawls/${id}/log?level=error` }, "Errors"), workflow, whole, fetched));
  // Polled once a second while the crawl runs: one indexed read, and
  // progress shows within two seconds of a page being stored.
  let timer = setInterval(async () => {
    try {
      await refresh();
      if (!["queued", "running"].includes(crawl.status)) clearInterval(timer);
    } catch (err) {
      answer.replaceChildren(problem(err));
    }
  }, 1000);
  stopLive = () => clearInterval(timer);
}

// lineChart draws stored pages over time as an SVG line.
function lineChart(samples) {
  const ns = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("class", "chart");
  svg.setAttribute("viewBox", "0 0 300 100");
  svg.setAttribute("preserveAspectRatio", "none");
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", "Pages stored over time");
  if (samples.length > 1) {
    const t0 = samples[0].t, t1 = samples[samples.length - 1].t || t0 + 1;
    const top = Math.max(1, ...samples.map((s) => s.stored));
    const line = document.createElementNS(ns, "polyline");
    line.setAttribute("points", samples.map((s) => `${(300 * (s.t - t0)) / Math.max(1, t1 - t0)},${100 - (95 * s.stored) / top}`).join(" "));
    svg.append(line);
  }
  return svg;
}

// crawlPages lists a crawl's pages by title and URL (their markdown left
// out: a page of a long crawl stays light), searched by URL or title.
async function crawlPages(id, params) {
  const page = Number(params.get("page") || 1);
  const q = params.get("q") || "";
  const query = new URLSearchParams({ page: String(page), limit: "20", markdown: "false" });
  if (q) query.set("q", q);
  const data = await api("GET", `/crawls/${id}/pages?${query}`);
  const search = h("input", { type: "search", id: "page-search", value: q, "aria-label": "Search pages by URL or title" });
  const form = h("form", { class: "row", role: "search", onsubmit: (e) => {
    e.preventDefault();
    location.hash = `#/crawls/${id}/pages?${new URLSearchParams(search.value.trim() ? { q: search.value.trim() } : {})}`;
  } }, h("label", { for: "page-search" }, "URL or title holds"), search, h("button", { type: "submit" }, "Search"));
  const at = (n) => `#/crawls/${id}/pages?${new URLSearchParams({ ...(q && { q }), page: String(n) })}`;
  const rows = data.results.map((p, i) => {
    const pos = (page - 1) * 20 + i + 1;
    return h("tr", {},
      h("td", {}, h("a", { href: `#/crawls/${id}/pages/${pos}?${new URLSearchParams(q ? { q } : {})}` }, p.title || "(no title)")),
      h("td", { class: "url" }, p.url), h("td", {}, String(p.statusCode)), h("td", {}, p.changeStatus || ""));
  });
  show(h("h1", {}, "Pages"), h("p", {}, h("a", { href: `#/crawls/${id}` }, "Back to the crawl")), form,
    rows.length ? h("table", {}, h("thead", {}, h("tr", {}, ["Title", "URL", "Status", "Change"].map((t) => h("th", { scope: "col" }, t)))), h("tbody", {}, rows))
      : h("p", {}, q ? "No page's URL or title holds that." : "No pages stored yet."),
    h("div", { class: "pager row" },
      page > 1 ? h("a", { href: at(page - 1) }, "Previous") : null,
      h("span", {}, `Page ${data.page} of ${Math.max(1, data.totalPages)} (${data.totalResults} pages)`),
      data.next ? h("a", { href: at(page + 1) }, "Next") : null));
}

// onePage shows the pos-th page of a listing (q as it searched) with its
// markdown, rendered or raw, its change status and its log entries.
async function onePage(id, pos, params) {
  const q = params.get("q") || "";
  const query = new URLSearchParams({ page: String(pos), limit: "1" });
  if (q) query.set("q", q);
  const data = await api("GET", `/crawls/${id}/pages?${query}`);
  const p = data.results[0];
  if (!p) return show(h("h1", {}, "Page"), h("div", { class: "notice bad", role: "alert" }, "This page is no longer in the crawl's results."));
  const text = p.markdown || "";
  const md = h("div", { class: "markdown", id: "rendered" });
  const raw = h("pre", { id: "raw", hidden: true });
  const showAs = (which) => {
    md.hidden = which !== "md";
    raw.hidden = which !== "raw";
    if (which === "md" && !md.childElementCount) md.append(...renderMarkdown(text));
    if (which === "raw" && !raw.textContent) raw.textContent = text;
  };
  const logs = await api("GET", `/crawl-logs/${id}?${new URLSearchParams({ url: p.url, limit: "20" })}`);
  show(h("h1", {}, p.title || "(no title)"),
    h("p", {}, h("a", { href: `#/crawls/${id}/pages?${new URLSearchParams(q ? { q } : {})}` }, "Back to the pages")),
    h("p", { class: "url" }, p.url, ` · status ${p.statusCode} · ${p.engine}`, p.changeStatus ? ` · ${p.changeStatus} since the previous crawl` : "",
      ` · ${text.length} characters of markdown`),
    h("div", { class: "row" },
      h("button", { onclick: () => showAs("md") }, "Rendered"),
      h("button", { onclick: () => showAs("raw") }, "Markdown"),
      h("button", { onclick: () => navigator.clipboard && navigator.clipboard.writeText(text) }, "Copy"),
      h("button", { onclick: () => download(`${slug(p.url)}.md`, text, "text/markdown") }, "Download")),
    md, raw,
    h("h2", {}, "Its log entries"),
    logTable(logs.results));
  showAs("md");
}

// downloadCrawl fetches every page of the crawl, a hundred at a time, and
// saves them as JSON lines.
async function downloadCrawl(id, status) {
  const lines = [];
  let page = 1, total = 0;
  try {
    for (;;) {
      const data = await api("GET", `/crawls/${id}/pages?page=${page}&limit=100`);
      for (const p of data.results) lines.push(JSON.stringify(p));
      total = data.totalResults;
      status.textContent = `${lines.length} of ${total} pages fetched`;
      if (!data.next) break;
      page++;
    }
    download(`crawl-${id}.jsonl`, lines.join("\n") + (lines.length ? "\n" : ""), "application/x-ndjson");
  } catch (err) {
    status.replaceChildren(problem(err));
  }
}

function slug(u) {
  return String(u).replace(/^https?:\/\//, "").replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 120) || "page";
}

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// The levels a log entry can have, as GET /crawl-logs filters them.
const levels = ["debug", "info", "warn", "error"];

async function crawlLog(id, params) {
  const page = Number(params.get("page") || 1);
  const level = params.get("level") || "";
  const query = new URLSearchParams({ page: String(page), limit: "100" });
  if (level) query.set("level", level);
  const data = await api("GET", `/crawl-logs/${id}?${query}`);
  const at = (n, l = level) => `#/crawls/${id}/log?${new URLSearchParams({ ...(l && { level: l }), page: String(n) })}`;
  const pick = h("select", { id: "level", onchange: (e) => { location.hash = at(1, e.target.value); } },
    ["", ...levels].map((l) => h("option", { value: l, selected: l === level }, l || "every level")));
  show(h("h1", {}, "Log"), h("p", {}, h("a", { href: `#/crawls/${id}` }, "Back to the crawl")),
    h("div", { class: "row" }, h("label", { for: "level" }, "Level"), pick),
    logTable(data.results),
    h("div", { class: "pager row" },
      page > 1 ? h("a", { href: at(page - 1) }, "Earlier") : null,
      h("span", {}, `Page ${data.page} of ${Math.max(1, data.totalPages)} (${data.totalResults} entries)`),
      data.next ? h("a", { href: at(page + 1) }, "Later") : null));
}

function logTable(entries) {
  if (!entries.length) return h("p", {}, "No entries.");
  return h("table", {}, h("thead", {}, h("tr", {}, ["Time", "Level", "Message", "URL", "Description"].map((t) => h("th", { scope: "col" }, t)))),
    h("tbody", {}, entries.map((e) => h("tr", {}, h("td", {}, when(e.createdAt)), h("td", {}, e.level), h("td", {}, e.message),
      h("td", { class: "url" }, (e.data && e.data.url) || ""), h("td", {}, e.description || "")))));
}

// schedulesView lists the team's schedules with their next runs; each
// can be paused and resumed.
async function schedulesView(params) {
  const page = Number(params.get("page") || 1);
  const data = await api("GET", `/schedules?page=${page}&limit=20`);
  const answer = h("div", { "aria-live": "polite" });
  const rows = data.results.map((sc) => h("tr", {},
    h("td", {}, sc.name || sc.id),
    h("td", {}, sc.cron ? `cron ${sc.cron}${sc.timezone ? ` (${sc.timezone})` : ""}` : `every ${sc.interval}`),
    h("td", {}, sc.paused ? "paused" : "active", sc.note ? ` — ${sc.note}` : ""),
    h("td", {}, (sc.nextRuns || []).slice(0, 3).map(when).join(", ") || "—"),
    h("td", {}, h("button", { onclick: async () => {
      try {
        await api("PATCH", `/schedules/${sc.id}`, { paused: !sc.paused });
        render();
      } catch (err) {
        answer.replaceChildren(problem(err));
      }
    } }, sc.paused ? "Resume" : "Pause"))));
  show(h("h1", {}, "Schedules"), answer,
    rows.length ? h("table", {}, h("thead", {}, h("tr", {}, ["Name", "When", "State", "Next runs", ""].map((t) => h("th", { scope: "col" }, t)))), h("tbody", {}, rows))
      : h("p", {}, "No schedules. POST /schedules makes one (docs/changes.md)."),
    h("div", { class: "pager row" },
      page > 1 ? h("a", { href: `#/schedules?page=${page - 1}` }, "Previous") : null,
      h("span", {}, `Page ${data.page} of ${Math.max(1, data.totalPages)}`),
      data.next ? h("a", { href: `#/schedules?page=${page + 1}` }, "Next") : null));
}

// usageView shows what the team used this month against its quota (pages
// stored and LLM tokens, as the operator bounds them), its crawls running
// against its concurrency, and its usage by day and key.
async function usageView() {
  const [credits, tokens, conc, byKey] = await Promise.all([api("GET", "/v2/team/credit-usage"), api("GET", "/v2/team/token-usage"),
    api("GET", "/v2/concurrency-check"), api("GET", "/v2/team/credit-usage/historical?byApiKey=true")]);
  const tokenDays = await api("GET", "/v2/team/token-usage/historical?byApiKey=true");
  const c = credits.data || {}, t = tokens.data || {};
  const unlimited = 2147483647;
  const bound = (plan) => (plan === null || plan === undefined ? "no quota" : `quota ${plan.toLocaleString()}`);
  const left = (n) => (n === unlimited ? "no bound" : `${n.toLocaleString()} left`);
  const day = (s) => String(s || "").slice(0, 10);
  const tokensOf = new Map((tokenDays.periods || []).map((p) => [`${day(p.startDate)} ${p.apiKey}`, p.tokensUsed]));
  const rows = (byKey.periods || []).slice().reverse().map((p) => h("tr", {},
    h("td", {}, day(p.startDate)), h("td", { class: "url" }, p.apiKey === "none" ? "(no key: a schedule's runs)" : p.apiKey),
    h("td", {}, String(p.creditsUsed)), h("td", {}, String(tokensOf.get(`${day(p.startDate)} ${p.apiKey}`) || 0))));
  show(h("h1", {}, "Usage"),
    h("p", {}, `This month, from ${day(c.billingPeriodStart)} to before ${day(c.billingPeriodEnd)}:`),
    h("dl", { class: "usage", id: "usage" },
      h("dt", {}, "Pages stored"), h("dd", {}, `${(c.creditsUsed || 0).toLocaleString()} (${bound(c.planCredits)}, ${left(c.remainingCredits)})`),
      h("dt", {}, "LLM tokens"), h("dd", {}, `${(t.tokensUsed || 0).toLocaleString()} (${bound(t.planTokens)}, ${left(t.remainingTokens)})`),
      h("dt", {}, "Crawls running"), h("dd", {}, `${conc.concurrency} of ${conc.maxConcurrency === unlimited ? "no bound" : conc.maxConcurrency}`)),
    h("h2", {}, "By day and API key"),
    rows.length ? h("table", {}, h("thead", {}, h("tr", {}, ["Day", "API key", "Pages", "Tokens"].map((x) => h("th", { scope: "col" }, x)))), h("tbody", {}, rows))
      : h("p", {}, "Nothing used in the last 90 days."));
}

// urlForm is a form of one URL field whose submit calls go with it.
function urlForm(title, label, go) {
  const input = h("input", { type: "url", id: "one-url", required: true, placeholder: "https://example.com/" });
  const err = h("span", { class: "error", id: "one-url-error", "aria-live": "polite" });
  const out = h("div", { "aria-live": "polite" });
  const form = h("form", { novalidate: true, onsubmit: async (e) => {
    e.preventDefault();
    err.textContent = "";
    out.replaceChildren(h("p", {}, "Working…"));
    try {
      out.replaceChildren(...(await go(input.value.trim())));
    } catch (error) {
      if (!(error instanceof APIError)) throw error;
      out.replaceChildren(problem(error));
      const d = error.details.find((x) => /url/i.test(String(x.field || (x.path || []).join("."))));
      if (d) err.textContent = d.message;
    }
  } },
  h("div", { class: "field" }, h("label", { for: "one-url" }, "URL"), input, err),
  h("button", { class: "primary", type: "submit" }, label));
  show(h("h1", {}, title), form, out);
  input.focus();
}

function scrapeView() {
  urlForm("Scrape one page", "Scrape", async (url) => {
    const res = await api("POST", "/v2/scrape", { url, formats: ["markdown"] });
    const doc = res.data || {};
    const text = doc.markdown || "";
    return [h("h2", {}, (doc.metadata && doc.metadata.title) || url),
      h("div", { class: "row" }, h("button", { onclick: () => download(`${slug(url)}.md`, text, "text/markdown") }, "Download")),
      h("div", { class: "markdown", id: "scraped" }, ...renderMarkdown(text))];
  });
}

function mapView() {
  urlForm("Map a site", "Map", async (url) => {
    const res = await api("POST", "/v2/map", { url });
    const links = (res.links || []).map((l) => (typeof l === "string" ? { url: l } : l));
    return [h("h2", {}, `${links.length} URLs`), h("ul", { id: "mapped" }, links.map((l) => h("li", { class: "url" }, l.url, l.title ? ` — ${l.title}` : "")))];
  });
}

// A view takes the focus once shown, unless another has started since.
window.addEventListener("hashchange", () => {
  const shown = render();
  const gen = generation;
  shown.then(() => { if (gen === generation) view.focus(); });
});
render();
