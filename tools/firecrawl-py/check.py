"""Drives the service's Firecrawl-compatible API with Firecrawl's own Python
SDK (firecrawl-py: the v2 Firecrawl client and the v1 V1FirecrawlApp, each
with its WebSocket watcher) and prints what each call answered, as one JSON
object, for integration/firecrawl_python_test.go to check.

    python check.py API_URL API_KEY SITE_URL LLM_API_URL

Every call is made with the SDK's own defaults (the v2 client sends maxAge,
storeInCache, skipTlsVerification, blockAds, ignoreRobotsTxt and the other
defaults it fills in), as an application built on the SDK makes it.
"""

import asyncio
import hashlib
import hmac
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import re

import firecrawl
import firecrawl.v1.client as v1types
from firecrawl import Firecrawl, V1FirecrawlApp
from firecrawl.v2 import types as v2types
from firecrawl.v2.types import PaginationConfig

api_url, api_key, site, llm_api_url = sys.argv[1:5]
fc = Firecrawl(api_key=api_key, api_url=api_url)
v1 = V1FirecrawlApp(api_key=api_key, api_url=api_url)
report = {"sdk": firecrawl.__version__}


def plain(v):
    """The SDK's answer as JSON-ready data (its pydantic models dumped)."""
    if hasattr(v, "model_dump"):
        return v.model_dump(exclude_none=True, mode="json")
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v


def step(name, fn):
    """Records what fn answered, or what it raised (the SDK's errors carry
    the HTTP status)."""
    try:
        report[name] = plain(fn())
    except Exception as e:  # the report says what was raised
        report[name] = {"raised": True, "type": type(e).__name__, "message": str(e),
                        "status": getattr(e, "status_code", None)}


def urls(job):
    """A crawl's state and its documents' URLs."""
    docs = job.data or []
    return {"id": getattr(job, "id", None), "status": job.status, "total": job.total, "completed": job.completed,
            "urls": [d.metadata.source_url if d.metadata else None for d in docs],
            "markdownChars": [len(d.markdown or "") for d in docs]}


def doc(d):
    """What a document says, small: its formats' sizes and metadata."""
    m = d.metadata
    return {"markdown": d.markdown, "html": d.html, "rawHtml": d.raw_html, "links": d.links, "images": d.images,
            "json": d.json, "summary": d.summary, "warning": d.warning,
            "statusCode": m.status_code if m else None, "sourceURL": m.source_url if m else None,
            "title": m.title if m else None, "error": m.error if m else None,
            "cacheState": m.cache_state if m else None, "cachedAt": m.cached_at if m else None}


# The request fields of the SDK's request models, by the request they go
# in, as sent (the field's alias, or its name in camel case): each must be
# one of the service's (firecrawl.Fields), so that a field a later SDK
# sends shows up as a failing check.
def sdk_fields():
    def names(model, leave=()):
        out = []
        for name, field in model.model_fields.items():
            if name not in leave:
                out.append(field.alias or re.sub("_([a-z])", lambda m: m.group(1).upper(), name))
        return out
    return {"scrapeOptions": names(v2types.ScrapeOptions), "crawl": names(v2types.CrawlRequest) + names(v1types.V1CrawlParams),
            # The SDK holds a batch's scrape options apart and sends them flat.
            "batch": names(v2types.BatchScrapeRequest, ("options",)), "map": names(v2types.MapOptions) + names(v1types.V1MapParams),
            "extract": names(v2types.ExtractRequest), "scrape": names(v1types.V1ScrapeParams),
            "search": names(v2types.SearchRequest, ("scrape_options",)) + ["scrapeOptions"] + names(v1types.V1SearchParams)}


step("sdkFields", sdk_fields)

# Scrapes: markdown, the error pages, the other formats, a repeat answered
# from the cache (the SDK asks for maxAge 4 hours), and one without it.
step("scrape", lambda: doc(fc.scrape(f"{site}/s1/p1", formats=["markdown"])))
step("scrapeErrorPages", lambda: {p: doc(fc.scrape(f"{site}{p}", formats=["markdown"])) for p in ["/missing", "/broken", "/forbidden"]})
step("scrapeFormats", lambda: doc(fc.scrape(f"{site}/meta", formats=["html", "rawHtml", "links", "images"])))


def cached():
    first = doc(fc.scrape(f"{site}/cached", formats=["markdown"]))
    started = time.monotonic()
    again = doc(fc.scrape(f"{site}/cached", formats=["markdown"]))
    took = time.monotonic() - started
    fresh = doc(fc.scrape(f"{site}/cached", formats=["markdown"], max_age=0))
    return {"first": first, "again": again, "againSeconds": took, "fresh": fresh}


step("scrapeCached", cached)
step("notHttp", lambda: fc.scrape("ftp://example.com/file", formats=["markdown"]))
# How a page is requested: headers, a phone's browser, a wait for late
# content, screenshots (the browser engine).
step("scrapeRequestShape", lambda: {"headers": doc(fc.scrape(f"{site}/echo", formats=["markdown"], headers={"X-Team": "docs"})),
                                    "mobile": doc(fc.scrape(f"{site}/echo", formats=["markdown"], mobile=True))})
step("scrapeWaitFor", lambda: doc(fc.scrape(f"{site}/late", formats=["markdown"], wait_for=2500)))
step("screenshots", lambda: {"viewport": fc.scrape(f"{site}/long", formats=["markdown", "screenshot"]).screenshot,
                             "full": fc.scrape(f"{site}/long", formats=[{"type": "screenshot", "full_page": True}]).screenshot})


# Search, through the deployment's SearXNG-compatible backend (the test's
# fake answers "durable crawl service" with pages of the site): results
# alone, then each scraped as one batch.
def search_results(data):
    def item(x):
        return {"url": getattr(x, "url", None) or (x.metadata.source_url if getattr(x, "metadata", None) else None),
                "title": getattr(x, "title", None) or (x.metadata.title if getattr(x, "metadata", None) else None),
                "markdown": getattr(x, "markdown", None), "kind": type(x).__name__}
    return {src: [item(x) for x in (getattr(data, src) or [])] for src in ("web", "news", "images")}


step("search", lambda: search_results(fc.search("durable crawl service", limit=3, sources=["web", "news", "images"])))
step("searchScrape", lambda: search_results(fc.search("durable crawl service", limit=2, tbs="qdr:y",
                                                      scrape_options=v2types.ScrapeOptions(formats=["markdown"]))))
step("searchBadTbs", lambda: fc.search("durable crawl service", tbs="last week"))
step("v1Search", lambda: plain(v1.search("durable crawl service", limit=2)))


# A team's usage and its quota (QUOTA_KEY: a key of a team past its page
# quota, made by the test).
step("creditUsage", lambda: plain(fc.get_credit_usage()))
step("tokenUsage", lambda: plain(fc.get_token_usage()))
step("creditUsageHistorical", lambda: plain(fc.v2.get_credit_usage_historical(by_api_key=True)))
step("tokenUsageHistorical", lambda: plain(fc.v2.get_token_usage_historical()))
step("concurrency", lambda: plain(fc.get_concurrency()))
step("queueStatus", lambda: plain(fc.get_queue_status()))
if os.environ.get("QUOTA_KEY"):
    over = Firecrawl(api_key=os.environ["QUOTA_KEY"], api_url=api_url)
    step("overQuota", lambda: over.scrape(f"{site}/s1/p1", formats=["markdown"]))
    step("overQuotaCreditUsage", lambda: plain(over.get_credit_usage()))


# Parse: uploaded files (PARSE_DOCX, a Word document the test wrote;
# PARSE_PDF, a real manual's PDF), an HTML page as bytes, and a file no
# reader takes.
def parsed(d):
    return {"markdown": d.markdown, "title": d.metadata.title if d.metadata else None,
            "fileName": (d.metadata_dict or {}).get("fileName"), "links": d.links}


if os.environ.get("PARSE_DOCX"):
    step("parseDocx", lambda: parsed(fc.parse(os.environ["PARSE_DOCX"])))
if os.environ.get("PARSE_PDF"):
    step("parsePdf", lambda: parsed(fc.parse(os.environ["PARSE_PDF"],
                                             options=v2types.ScrapeOptions(parsers=[{"type": "pdf", "maxPages": 3}]))))
step("parseHtml", lambda: parsed(fc.parse(b"<html><head><title>Kettles</title></head><body><main><h1>Kettles</h1>"
                                          b"<p>A steel kettle for the stove.</p><a href='https://example.com/k'>More</a></main></body></html>",
                                          filename="kettles.html", options=v2types.ScrapeOptions(formats=["markdown", "links"]))))
step("parseUnreadable", lambda: fc.parse(b"\x00\x01\x02\xff", filename="noise.bin"))


def actions():
    """A page read after signing in, a button and a scroll, with every kind
    of action's result; the SDK's own action models and plain dicts."""
    d = fc.scrape(f"{site}/app", formats=["markdown"], actions=[
        v2types.ClickAction(selector="#user"), v2types.WriteAction(text="ada"),
        {"type": "click", "selector": "#password"}, {"type": "write", "text": "opensesame"},
        v2types.PressAction(key="Enter"),
        v2types.WaitAction(selector="#welcome"),
        v2types.ClickAction(selector="#more"),
        v2types.ScrollAction(direction="down"),
        v2types.WaitAction(milliseconds=500),
        v2types.ScreenshotAction(full_page=True, quality=40),
        v2types.ScrapeAction(),
        v2types.ExecuteJavascriptAction(script="return document.querySelectorAll('#items li').length"),
        v2types.PDFAction(format="A4"),
    ])
    return {"markdown": d.markdown, "actions": d.actions}


step("scrapeActions", actions)
step("scrapeActionFails", lambda: fc.scrape(f"{site}/app", actions=[{"type": "click", "selector": "#no-such-button"}]))
step("scrapeActionsTooLong", lambda: fc.scrape(f"{site}/app", actions=[{"type": "wait", "milliseconds": 61000}]))

# Crawls, with the SDK's defaults (ignoreRobotsTxt false, sitemap include…).
step("crawlFormats", lambda: urls(fc.crawl(f"{site}/", limit=3, sitemap="skip", scrape_options={"formats": ["markdown", "links"]},
                                           poll_interval=1, timeout=120)))
step("crawlPastOnePage", lambda: urls(fc.crawl(f"{site}/", limit=150, poll_interval=1, timeout=240)))
step("crawlDepth0", lambda: urls(fc.crawl(f"{site}/", limit=50, max_discovery_depth=0, sitemap="skip", poll_interval=1, timeout=120)))
step("crawlDepth1", lambda: urls(fc.crawl(f"{site}/", limit=200, max_discovery_depth=1, sitemap="skip", poll_interval=1, timeout=120)))
step("crawlSitemapInclude", lambda: urls(fc.crawl(f"{site}/", limit=50, max_discovery_depth=0, poll_interval=1, timeout=120)))
step("crawlQueries", lambda: urls(fc.crawl(f"{site}/qstart", limit=10, sitemap="skip", poll_interval=1, timeout=120)))
step("crawlIgnoreQueries", lambda: urls(fc.crawl(f"{site}/qstart", limit=10, sitemap="skip", ignore_query_parameters=True,
                                                 poll_interval=1, timeout=120)))
step("crawlSitemapOnly", lambda: urls(fc.crawl(f"{site}/", limit=50, sitemap="only", poll_interval=1, timeout=120)))
step("crawlExclude", lambda: urls(fc.crawl(f"{site}/", limit=60, exclude_paths=["^/s2/", "p1[0-9]$"], poll_interval=1, timeout=120)))


def wait_crawl(job_id):
    """Waits for a crawl to end and returns its status with every document."""
    deadline = time.monotonic() + 180
    while (job := fc.get_crawl_status(job_id)).status == "scraping":
        if time.monotonic() > deadline:
            raise TimeoutError("the crawl did not end")
        time.sleep(1)
    return job


def paged():
    started = fc.start_crawl(f"{site}/", limit=120, sitemap="skip")
    deadline = time.monotonic() + 180
    while fc.get_crawl_status(started.id, pagination_config=PaginationConfig(auto_paginate=False)).status == "scraping":
        if time.monotonic() > deadline:
            raise TimeoutError("the crawl did not end")
        time.sleep(1)
    first = fc.get_crawl_status(started.id, pagination_config=PaginationConfig(auto_paginate=False))
    whole = fc.get_crawl_status(started.id)
    return {"firstPage": len(first.data), "next": first.next, "whole": len(whole.data), "status": whole.status}


step("crawlPaged", paged)


def robots():
    job_id = fc.start_crawl(f"{site}/", limit=400).id
    job = wait_crawl(job_id)
    errors = fc.get_crawl_errors(job_id)
    return {"status": job.status, "documents": len(job.data), "robotsBlocked": len(errors.robots_blocked), "errors": len(errors.errors)}


step("robots", robots)
def robots_linked():
    job_id = fc.start_crawl(f"{site}/withprivate", limit=2, sitemap="skip").id
    return {**urls(wait_crawl(job_id)), "robotsBlocked": fc.get_crawl_errors(job_id).robots_blocked}


step("robotsLinked", robots_linked)
step("ignoreRobots", lambda: fc.start_crawl(f"{site}/", limit=5, ignore_robots_txt=True))


def missing():
    job_id = fc.start_crawl(f"{site}/missing", limit=5).id
    return {**urls(wait_crawl(job_id)), "errors": plain(fc.get_crawl_errors(job_id))}


step("crawlMissing", missing)


def cancel():
    started = fc.start_crawl(f"{site}/slow/", limit=5000)
    active = fc.get_active_crawls()
    cancelled = fc.cancel_crawl(started.id)
    status = fc.get_crawl_status(started.id)
    return {"id": started.id, "activeIds": [c.id for c in active.crawls], "cancelled": cancelled, "status": status.status}


step("cancel", cancel)
step("badRegex", lambda: fc.start_crawl(f"{site}/", include_paths=["(?<=x)a"]))
step("unknownCrawl", lambda: fc.get_crawl_status("00000000-0000-4000-8000-000000000000"))


# Batch scrapes: a missing page in the errors, cancel. (The SDK refuses
# URLs that are not http or https itself, before sending.)
def batch():
    started = fc.start_batch_scrape([f"{site}/s1/p1", f"{site}/s2/p2", f"{site}/missing"], formats=["markdown"])
    job = fc.get_batch_scrape_status(started.id)
    deadline = time.monotonic() + 120
    while job.status == "scraping" and time.monotonic() < deadline:
        time.sleep(1)
        job = fc.get_batch_scrape_status(started.id)
    return {**urls(job), "errors": plain(fc.get_batch_scrape_errors(started.id))}


step("batch", batch)


def batch_cancel():
    started = fc.start_batch_scrape([f"{site}/slow/1", f"{site}/slow/2"])
    return {"id": started.id, "invalidURLs": started.invalid_urls, "cancelled": fc.cancel_batch_scrape(started.id)}


step("batchStartCancel", batch_cancel)


# Maps.
def maps():
    everything = fc.map(f"{site}/", limit=1000)
    search = fc.map(f"{site}/", search="P1", limit=20)
    only = fc.map(f"{site}/", sitemap="only")
    return {"all": [l.url for l in everything.links], "search": [l.url for l in search.links], "only": [l.url for l in only.links]}


step("map", maps)
step("mapLocation", lambda: fc.map(f"{site}/", location={"country": "US"}))


# The v2 watcher: a running crawl followed to its end, and a crawl that
# ended with more documents than one status answer holds, watched whole.
def watch(job_id, kind="crawl"):
    w = fc.watcher(job_id, kind=kind, timeout=120)  # the SDK's poll interval
    docs, done, statuses = set(), threading.Event(), []
    w.add_event_listener("document", lambda e: docs.add(e["data"].get("metadata", {}).get("sourceURL")))
    w.add_event_listener("done", lambda e: (statuses.append(e["status"]), done.set()))
    w.add_event_listener("error", lambda e: (statuses.append("error: %s" % e.get("error")), done.set()))
    w.add_listener(lambda job: statuses.append(job.status))
    w.start()
    done.wait(150)
    w.stop()
    return {"documents": len(docs), "done": done.is_set(), "statuses": statuses}


step("watchRunning", lambda: watch(fc.start_crawl(f"{site}/", limit=30, sitemap="skip").id))


def watch_ended():
    started = fc.start_crawl(f"{site}/", limit=105, sitemap="skip")
    return {"crawled": len(wait_crawl(started.id).data), **watch(started.id)}


step("watchEnded", watch_ended)
step("watchBatch", lambda: watch(fc.start_batch_scrape([f"{site}/s1/p1", f"{site}/s2/p2", f"{site}/s1/p7"]).id, "batch"))

# The json format against a deployment with an LLM, and the summary format.
llm = Firecrawl(api_key=api_key, api_url=llm_api_url)
# A crawl from a sentence, through the deployment with an LLM: the plan
# alone, a plan whose option does not hold, and a crawl started with it.
step("paramsPreview", lambda: plain(llm.crawl_params_preview(f"{site}/blog/", "only the blog posts from 2024, not the tag pages")))
step("paramsPreviewBroken", lambda: plain(llm.crawl_params_preview(f"{site}/blog/", "a broken plan")))
step("paramsPreviewRefused", lambda: plain(llm.crawl_params_preview(f"{site}/blog/", "something the model cannot plan")))


def crawl_prompt():
    started = llm.start_crawl(f"{site}/blog/", prompt="only the blog posts from 2024, not the tag pages")
    out = urls(wait_crawl(started.id))
    out["id"] = started.id
    return out


step("crawlPrompt", crawl_prompt)
step("crawlPromptNoLLM", lambda: fc.start_crawl(f"{site}/blog/", prompt="only the blog posts from 2024"))

schema = {"type": "object", "required": ["title", "price"], "properties": {"title": {"type": "string"}, "price": {"type": "number"}}}
step("scrapeJson", lambda: doc(llm.scrape(f"{site}/schema-ok", formats=["markdown", {"type": "json", "prompt": "The product.", "schema": schema}])))
step("scrapeSummary", lambda: doc(llm.scrape(f"{site}/schema-ok", formats=["summary"])))
list_schema = {"type": "object", "properties": {"title": {"type": "string"}, "items": {"type": "array", "items": {"type": "string"}}}}
step("extract", lambda: llm.extract([f"{site}/schema-list-1", f"{site}/schema-list-2"], prompt="The items.",
                                    schema=list_schema, poll_interval=1, timeout=120))
step("extractNoLLM", lambda: fc.extract([f"{site}/schema-list-1"], prompt="The items."))
# A part of a site (a wildcard), with the pages each field came from;
# and pages the web search finds for the prompt.
step("extractWildcard", lambda: plain(llm.extract([f"{site}/blog/*"], prompt="The blog's pages.", show_sources=True,
                                                  poll_interval=1, timeout=120)))


def extract_started():
    """start_extract, then get_extract_status until it ends."""
    started = llm.start_extract([f"{site}/schema-list-1", f"{site}/schema-list-2"], prompt="The items.", show_sources=True)
    deadline = time.monotonic() + 120
    while (st := llm.get_extract_status(started.id)).status == "processing":
        if time.monotonic() > deadline:
            raise TimeoutError("the extraction did not end")
        time.sleep(1)
    return {"id": started.id, "status": plain(st)}


step("extractStarted", extract_started)
step("extractWebSearch", lambda: plain(llm.extract(prompt="durable crawl service extract", enable_web_search=True,
                                                   poll_interval=1, timeout=120)))
step("scrapeJsonBadSchema", lambda: llm.scrape(f"{site}/schema-ok", formats=[{"type": "json", "schema": {"type": "product"}}]))
step("summaryWithoutLLM", lambda: fc.scrape(f"{site}/s1/p1", formats=["summary"]))


# Webhooks: a receiver that fails the first attempt at each event (503)
# and records the ones it accepts, with whether their signature is the
# HMAC-SHA256 of the exact body with the service's secret (WEBHOOK_SECRET).
secret = os.environ.get("WEBHOOK_SECRET", "").encode()


def receiver():
    tries, accepted = {}, []

    class Hook(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            event = json.loads(body)
            n = tries.get(event["eventId"], 0) + 1
            tries[event["eventId"]] = n
            if n == 1:
                self.send_response(503)
                self.end_headers()
                return
            want = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
            page = (event.get("data") or [{}])[0] if event.get("data") else {}
            accepted.append({"type": event["type"], "id": event["id"], "eventId": event["eventId"], "attempt": n,
                             "signed": hmac.compare_digest(want, self.headers.get("X-Firecrawl-Signature", "")),
                             "success": event.get("success"), "header": self.headers.get("X-Test"), "metadata": event.get("metadata"),
                             "url": (page.get("metadata") or {}).get("sourceURL"), "markdown": len(page.get("markdown") or "")})
            self.send_response(200)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Hook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_address[1]}/hook", accepted, server


def until_end(accepted, server, kind):
    deadline = time.monotonic() + 90
    while not any(e["type"] == kind for e in accepted) and time.monotonic() < deadline:
        time.sleep(0.1)
    server.shutdown()
    return accepted


def webhook_crawl():
    url, accepted, server = receiver()
    job_id = fc.start_crawl(f"{site}/", limit=12, sitemap="skip",
                            webhook={"url": url, "headers": {"X-Test": "yes"}, "metadata": {"run": "check"}}).id
    return {"id": job_id, "documents": len(wait_crawl(job_id).data), "events": until_end(accepted, server, "crawl.completed")}


def webhook_batch():
    url, accepted, server = receiver()
    started = fc.start_batch_scrape([f"{site}/s1/p1", f"{site}/s2/p2"], webhook=v2types.WebhookConfig(url=url, events=["page", "completed"]))
    return {"id": started.id, "events": until_end(accepted, server, "batch_scrape.completed")}


step("webhookCrawl", webhook_crawl)
step("webhookBatch", webhook_batch)


# The v1 client: scrape, crawl, map, batch, errors, cancel, and its
# WebSocket watcher, which reads until the service closes the connection.
step("v1Scrape", lambda: v1.scrape_url(f"{site}/s1/p1", formats=["markdown"]))
step("v1Crawl", lambda: {"status": (j := v1.crawl_url(f"{site}/", limit=5, poll_interval=1)).status, "success": j.success,
                         "urls": [d.metadata.get("sourceURL") if isinstance(d.metadata, dict) else None for d in j.data]})
step("v1Map", lambda: v1.map_url(f"{site}/", limit=5))
step("v1Batch", lambda: {"status": (j := v1.batch_scrape_urls([f"{site}/s1/p1", f"{site}/s2/p2"], formats=["markdown"], poll_interval=1)).status,
                         "documents": len(j.data)})


def v1_errors_cancel():
    started = v1.async_crawl_url(f"{site}/slow/", limit=5000)
    return {"cancel": v1.cancel_crawl(started.id), "errors": plain(v1.check_crawl_errors(started.id))}


step("v1Cancel", v1_errors_cancel)


def v1_watch():
    watcher = v1.crawl_url_and_watch(f"{site}/", limit=20, ignore_sitemap=True)
    docs = set()
    watcher.add_event_listener("document", lambda e: docs.add((e["data"].get("metadata") or {}).get("sourceURL")))
    asyncio.run(asyncio.wait_for(watcher.connect(), 150))
    return {"documents": len(docs), "status": watcher.status, "id": watcher.id}


step("v1Watch", v1_watch)


def v1_watch_ended():
    started = v1.async_crawl_url(f"{site}/", limit=105, ignore_sitemap=True)
    deadline = time.monotonic() + 180
    while v1.check_crawl_status(started.id).status == "scraping":
        if time.monotonic() > deadline:
            raise TimeoutError("the crawl did not end")
        time.sleep(1)
    w = firecrawl.v1.client.V1CrawlWatcher(started.id, v1)
    docs = set()
    w.add_event_listener("document", lambda e: docs.add((e["data"].get("metadata") or {}).get("sourceURL")))
    asyncio.run(asyncio.wait_for(w.connect(), 60))
    return {"documents": len(docs), "status": w.status}


step("v1WatchEnded", v1_watch_ended)

sys.stdout.write(json.dumps(report) + "\n")
