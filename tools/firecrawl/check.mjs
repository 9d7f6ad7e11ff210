// Drives the service's Firecrawl-compatible API with Firecrawl's own JS
// SDK (pinned in package-lock.json) and prints what each call answered,
// as one JSON object, for integration/firecrawl_test.go to check.
//
//   node check.mjs API_URL API_KEY SITE_URL
import Firecrawl from '@mendable/firecrawl-js';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';

// LLM_API_URL is a deployment of the service with an LLM, for the json
// format.
const [apiUrl, apiKey, site, llmApiUrl] = process.argv.slice(2);
// The secret the service signs webhook events with (CRAWLER_WEBHOOK_SECRET).
const webhookSecret = process.env.WEBHOOK_SECRET ?? '';
const fc = new Firecrawl({ apiUrl, apiKey });
const report = {};

// step records what fn answered, or what it threw (the SDK's SdkError
// carries the status, code and details of an error answer).
async function step(name, fn) {
  try {
    report[name] = await fn();
  } catch (e) {
    report[name] = { thrown: true, name: e?.name, message: String(e?.message ?? e), status: e?.status ?? null, code: e?.code ?? null, details: e?.details ?? null };
  }
}

// urls keeps a crawl's answer small: its state and the documents' URLs.
function urls(job) {
  return { id: job.id, status: job.status, total: job.total, completed: job.completed, next: job.next ?? null,
    urls: (job.data ?? []).map((d) => d.metadata?.sourceURL), markdownChars: (job.data ?? []).map((d) => (d.markdown ?? '').length) };
}

await step('scrape', () => fc.scrape(`${site}/s1/p1`, { formats: ['markdown'] }));
// Pages that answer an error status with a body: the document, its status
// in metadata.statusCode, as Firecrawl answers them.
await step('scrapeErrorPages', async () => {
  const out = {};
  for (const path of ['/missing', '/broken', '/forbidden']) {
    const d = await fc.scrape(`${site}${path}`, { formats: ['markdown'] });
    out[path] = { markdown: d.markdown ?? '', statusCode: d.metadata?.statusCode ?? null, error: d.metadata?.error ?? null };
  }
  return out;
});
await step('scrapeFormats', () => fc.scrape(`${site}/meta`, { formats: ['html', 'rawHtml', 'links', 'images'] }));
await step('crawlFormats', async () => {
  const job = await fc.crawl(`${site}/`, { limit: 3, sitemap: 'skip', scrapeOptions: { formats: ['markdown', 'links'] }, pollInterval: 1, timeout: 120 });
  return { status: job.status, docs: job.data.map((d) => ({ markdown: (d.markdown ?? '').length, links: d.links?.length ?? -1, html: d.html === undefined })) };
});
await step('crawlPastOnePage', async () => urls(await fc.crawl(`${site}/`, { limit: 150, pollInterval: 1, timeout: 240 })));
await step('crawlDepth0', async () => urls(await fc.crawl(`${site}/`, { limit: 50, maxDiscoveryDepth: 0, sitemap: 'skip', pollInterval: 1, timeout: 120 })));
await step('crawlDepth1', async () => urls(await fc.crawl(`${site}/`, { limit: 200, maxDiscoveryDepth: 1, sitemap: 'skip', pollInterval: 1, timeout: 120 })));
await step('crawlDelay', async () => urls(await fc.crawl(`${site}/paced/0`, { limit: 4, delay: 0.6, sitemap: 'skip', pollInterval: 1, timeout: 120 })));
await step('scrapeWaitFor', () => fc.scrape(`${site}/late`, { formats: ['markdown'], waitFor: 2500 }));
// The same page rendered without the wait (mobile puts it in the browser).
await step('scrapeNoWait', () => fc.scrape(`${site}/late`, { formats: ['markdown'], mobile: true }));
await step('crawlQueries', async () => urls(await fc.crawl(`${site}/qstart`, { limit: 10, sitemap: 'skip', pollInterval: 1, timeout: 120 })));
await step('crawlIgnoreQueries', async () => urls(await fc.crawl(`${site}/qstart`, { limit: 10, sitemap: 'skip', ignoreQueryParameters: true, pollInterval: 1, timeout: 120 })));
await step('scrapeRequestShape', async () => ({
  headers: await fc.scrape(`${site}/echo`, { formats: ['markdown'], headers: { 'X-Team': 'docs' } }),
  mobile: await fc.scrape(`${site}/echo`, { formats: ['markdown'], mobile: true }),
}));
// Page actions: sign in, a button, a scroll, then every kind of action's
// result; and a batch whose pages all act (the batch's scrape options).
await step('scrapeActions', async () => {
  const d = await fc.scrape(`${site}/app`, { formats: ['markdown'], actions: [
    { type: 'click', selector: '#user' }, { type: 'write', text: 'ada' },
    { type: 'click', selector: '#password' }, { type: 'write', text: 'opensesame' },
    { type: 'press', key: 'Enter' }, { type: 'wait', selector: '#welcome' },
    { type: 'click', selector: '#more' }, { type: 'scroll', direction: 'down' }, { type: 'wait', milliseconds: 500 },
    { type: 'screenshot', fullPage: true, quality: 40 }, { type: 'scrape' },
    { type: 'executeJavascript', script: "return document.querySelectorAll('#items li').length" }, { type: 'pdf', format: 'A4' },
  ] });
  return { markdown: d.markdown, actions: d.actions };
});
await step('batchActions', async () => {
  const job = await fc.batchScrape([`${site}/app`, `${site}/app?again=1`], { options: { formats: ['markdown'],
    actions: [{ type: 'click', selector: '#more' }, { type: 'wait', milliseconds: 300 }, { type: 'executeJavascript', script: 'document.title' }] },
    pollInterval: 1, timeout: 120 });
  return { status: job.status, docs: job.data.map((d) => ({ markdown: d.markdown ?? '', returns: d.actions?.javascriptReturns ?? null })) };
});
// Search through the deployment's backend: results alone, then scraped.
const searchItems = (data) => Object.fromEntries(['web', 'news', 'images'].map((src) => [src, (data[src] ?? []).map((x) => ({
  url: x.url ?? x.metadata?.sourceURL ?? null, title: x.title ?? x.metadata?.title ?? null, markdown: x.markdown ?? '' }))]));
await step('search', async () => searchItems(await fc.search('durable crawl service js', { limit: 3, sources: ['web', 'news', 'images'] })));
await step('searchScrape', async () => searchItems(await fc.search('durable crawl service js', { limit: 2, tbs: 'qdr:y', scrapeOptions: { formats: ['markdown'] } })));
// An HTML file parsed from memory.
await step('parse', async () => {
  const d = await fc.parse({ filename: 'kettles.html', contentType: 'text/html',
    data: Buffer.from('<html><head><title>Kettles</title></head><body><main><h1>Kettles</h1><p>A steel kettle for the stove.</p></main></body></html>') },
  { formats: ['markdown'] });
  return { markdown: d.markdown ?? '', title: d.metadata?.title ?? null, fileName: d.metadata?.fileName ?? null };
});
// A crawl's options from a sentence, on the deployment with an LLM.
await step('paramsPreview', async () => new Firecrawl({ apiUrl: llmApiUrl, apiKey }).crawlParamsPreview(`${site}/blog/`,
  'only the blog posts from 2024, not the tag pages'));
// An extraction of a part of a site, with its sources; and one started,
// then read.
await step('extractWildcard', async () => new Firecrawl({ apiUrl: llmApiUrl, apiKey }).extract({ urls: [`${site}/blog/*`],
  prompt: "The blog's pages.", showSources: true, pollInterval: 1, timeout: 120 }));
await step('extractStarted', async () => {
  const llm = new Firecrawl({ apiUrl: llmApiUrl, apiKey });
  const started = await llm.startExtract({ urls: [`${site}/schema-list-1`, `${site}/schema-list-2`], prompt: 'The items.' });
  let st;
  for (let i = 0; i < 120; i++) {
    st = await llm.getExtractStatus(started.id);
    if (st.status !== 'processing') break;
    await new Promise((ok) => setTimeout(ok, 1000));
  }
  return { id: started.id, status: st.status, data: st.data };
});
// The team's usage.
await step('usage', async () => ({
  credits: await fc.getCreditUsage(), tokens: await fc.getTokenUsage(), creditsByKey: await fc.getCreditUsageHistorical(true),
  tokensHistory: await fc.getTokenUsageHistorical(false), concurrency: await fc.getConcurrency(), queue: await fc.getQueueStatus(),
}));
await step('scrapeActionFails', () => fc.scrape(`${site}/app`, { actions: [{ type: 'click', selector: '#no-such-button' }] }));
await step('crawlSitemapInclude', async () => urls(await fc.crawl(`${site}/`, { limit: 50, maxDiscoveryDepth: 0, pollInterval: 1, timeout: 120 })));
await step('crawlSitemapOnly', async () => urls(await fc.crawl(`${site}/`, { limit: 50, sitemap: 'only', pollInterval: 1, timeout: 120 })));
await step('crawlExclude', async () => urls(await fc.crawl(`${site}/`, { limit: 60, excludePaths: ['^/s2/', 'p1[0-9]$'], pollInterval: 1, timeout: 120 })));
await step('crawlMissing', async () => {
  const job = await fc.crawl(`${site}/missing`, { limit: 5, pollInterval: 1, timeout: 120 });
  return { ...urls(job), errors: await fc.getCrawlErrors(job.id) };
});
await step('robots', async () => {
  const job = await fc.crawl(`${site}/`, { limit: 400, pollInterval: 1, timeout: 240 });
  const errors = await fc.getCrawlErrors(job.id);
  return { id: job.id, status: job.status, robotsBlocked: errors.robotsBlocked.length, errors: errors.errors.length };
});
// A page the crawl found that robots.txt disallows is in robotsBlocked,
// though the limit (2) is reached before the crawl would come to it.
await step('robotsLinked', async () => {
  const job = await fc.crawl(`${site}/withprivate`, { limit: 2, sitemap: 'skip', pollInterval: 1, timeout: 120 });
  return { ...urls(job), errors: await fc.getCrawlErrors(job.id) };
});
await step('cancel', async () => {
  const started = await fc.startCrawl(`${site}/slow/`, { limit: 5000 });
  const active = await fc.getActiveCrawls();
  const cancelled = await fc.cancelCrawl(started.id);
  const status = await fc.getCrawlStatus(started.id);
  return { id: started.id, url: started.url, activeIds: active.crawls.map((c) => c.id), cancelled, status: status.status };
});
await step('batch', async () => {
  const job = await fc.batchScrape([`${site}/s1/p1`, `${site}/s2/p2`, `${site}/missing`, 'not a url'], { options: { formats: ['markdown'] }, ignoreInvalidURLs: true, pollInterval: 1, timeout: 120 });
  return { ...urls(job), errors: await fc.getBatchScrapeErrors(job.id) };
});
await step('batchStartCancel', async () => {
  const started = await fc.startBatchScrape([`${site}/slow/1`, `${site}/slow/2`], { ignoreInvalidURLs: true });
  return { id: started.id, url: started.url, cancelled: await fc.cancelBatchScrape(started.id) };
});
await step('batchInvalid', () => fc.startBatchScrape([`${site}/s1/p1`, 'ftp://example.com/x'], { ignoreInvalidURLs: false }));
// The watcher follows a crawl over a WebSocket where the runtime has one
// (Node 22, or Node 20 with --experimental-websocket), else by polling.
await step('watch', async () => {
  const started = await fc.startCrawl(`${site}/`, { limit: 30, sitemap: 'skip' });
  const watcher = fc.watcher(started.id, { kind: 'crawl', pollInterval: 1, timeout: 120 });
  const docs = new Set();
  let done = null;
  let error = null;
  watcher.on('document', (d) => docs.add(d.metadata?.sourceURL));
  watcher.on('done', (s) => { done = s.status; });
  watcher.on('error', (e) => { error = e.error; });
  await watcher.start();
  return { webSocket: typeof WebSocket !== 'undefined', documents: docs.size, done, error };
});
await step('unsupportedFormat', () => fc.startCrawl(`${site}/`, { scrapeOptions: { formats: ['summary'] } }));
// Screenshots, rendered by the browser engine and served by URL.
await step('screenshots', async () => {
  const viewport = await fc.scrape(`${site}/long`, { formats: ['markdown', 'screenshot'] });
  const full = await fc.scrape(`${site}/long`, { formats: [{ type: 'screenshot', fullPage: true }] });
  return { viewport: viewport.screenshot ?? null, full: full.screenshot ?? null, markdown: (viewport.markdown ?? '').length };
});
await step('notHttp', () => fc.scrape('ftp://example.com/file', { formats: ['markdown'] }));
await step('badRegex', () => fc.startCrawl(`${site}/`, { includePaths: ['(?<=x)a'] }));
await step('unknownCrawl', () => fc.getCrawlStatus('00000000-0000-4000-8000-000000000000'));
await step('map', async () => {
  const all = await fc.map(`${site}/`, { limit: 1000 });
  const search = await fc.map(`${site}/`, { search: 'P1', limit: 20 });
  const only = await fc.map(`${site}/`, { sitemap: 'only' });
  const skip = await fc.map(`${site}/`, { sitemap: 'skip', limit: 10 });
  const v1 = await fc.v1.mapUrl(`${site}/`, { limit: 5 });
  return { id: all.id, all: all.links.map((l) => l.url), search: search.links.map((l) => l.url), only: only.links.map((l) => l.url),
    skip: skip.links.map((l) => l.url), v1: v1.links ?? v1 };
});
await step('mapLocation', () => fc.map(`${site}/`, { location: { country: 'US' } }));
await step('v1Scrape', () => fc.v1.scrapeUrl(`${site}/s1/p1`, { formats: ['markdown'] }));
await step('v1Crawl', async () => {
  const job = await fc.v1.crawlUrl(`${site}/`, { limit: 5 }, 1);
  return { success: job.success, status: job.status, completed: job.completed, urls: (job.data ?? []).map((d) => d.metadata?.sourceURL) };
});

// The json format: an answer that validates against the schema, one
// repaired after a first that did not, and one that never does.
await step('scrapeJson', async () => {
  const llm = new Firecrawl({ apiUrl: llmApiUrl, apiKey });
  const schema = { type: 'object', required: ['title', 'price'], properties: { title: { type: 'string' }, price: { type: 'number' } } };
  const out = {};
  for (const page of ['schema-ok', 'schema-repair', 'schema-never']) {
    const doc = await llm.scrape(`${site}/${page}`, { formats: ['markdown', { type: 'json', prompt: 'The product.', schema }] });
    out[page] = { json: doc.json ?? null, warning: doc.warning ?? null, markdown: (doc.markdown ?? '').length };
  }
  return out;
});
await step('scrapeJsonBadSchema', () => new Firecrawl({ apiUrl: llmApiUrl, apiKey }).scrape(`${site}/schema-ok`,
  { formats: [{ type: 'json', schema: { type: 'product' } }] }));

// receiver is a webhook endpoint that fails the first attempt at each
// event (503) and records the ones it accepts, with whether their
// signature is the HMAC-SHA256 of the exact body.
async function receiver() {
  const tries = new Map();
  const accepted = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const event = JSON.parse(body.toString('utf8'));
      const n = (tries.get(event.eventId) ?? 0) + 1;
      tries.set(event.eventId, n);
      if (n === 1) {
        res.writeHead(503).end('busy');
        return;
      }
      const want = 'sha256=' + createHmac('sha256', webhookSecret).update(body).digest('hex');
      const got = req.headers['x-firecrawl-signature'] ?? '';
      const signed = got.length === want.length && timingSafeEqual(Buffer.from(got), Buffer.from(want));
      accepted.push({ type: event.type, id: event.id, eventId: event.eventId, attempt: n, signed, success: event.success,
        header: req.headers['x-test'] ?? null, metadata: event.metadata, url: event.data?.[0]?.metadata?.sourceURL ?? null,
        markdown: (event.data?.[0]?.markdown ?? '').length });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  return { url: `http://127.0.0.1:${server.address().port}/hook`, accepted, server };
}

// untilEnd waits until the receiver accepted an event of type, or 90 s.
async function untilEnd(r, type) {
  for (let i = 0; i < 900 && !r.accepted.some((e) => e.type === type); i++) {
    await new Promise((ok) => setTimeout(ok, 100));
  }
  r.server.close();
  return r.accepted;
}

await step('webhookCrawl', async () => {
  const r = await receiver();
  const job = await fc.crawl(`${site}/`, { limit: 12, sitemap: 'skip', pollInterval: 1, timeout: 120,
    webhook: { url: r.url, headers: { 'X-Test': 'yes' }, metadata: { run: 'check' } } });
  return { id: job.id, documents: job.data.length, events: await untilEnd(r, 'crawl.completed') };
});
await step('webhookBatch', async () => {
  const r = await receiver();
  const job = await fc.batchScrape([`${site}/s1/p1`, `${site}/s2/p2`], { webhook: { url: r.url, events: ['page', 'completed'] },
    pollInterval: 1, timeout: 120 });
  return { id: job.id, events: await untilEnd(r, 'batch_scrape.completed') };
});

process.stdout.write(JSON.stringify(report) + '\n');
