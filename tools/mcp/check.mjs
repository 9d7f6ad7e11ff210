// Drives two MCP servers with the MCP TypeScript SDK's client (pinned in
// package-lock.json) and prints what each tool call answered, as one JSON
// object, for integration/mcp_test.go to check:
//  - Firecrawl's own MCP server (firecrawl-mcp), over stdio, pointed at
//    the service with FIRECRAWL_API_URL, its tools called with their
//    arguments as an agent sends them;
//  - the service's own MCP endpoint, over streamable HTTP at /mcp, with the
//    API key as the bearer token.
//
//   node check.mjs API_URL API_KEY SITE_URL LLM_API_URL
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const [apiUrl, apiKey, site, llmApiUrl] = process.argv.slice(2);
const here = dirname(fileURLToPath(import.meta.url));
const report = {};

// call records a tool's answer: its text, its structured content, and
// whether it is an error; a call that throws is recorded as thrown.
async function call(client, name, args) {
  try {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 300000 });
    return { isError: r.isError ?? false, text: (r.content ?? []).filter((c) => c.type === 'text').map((c) => c.text).join('\n'),
      structured: r.structuredContent ?? null };
  } catch (e) {
    return { thrown: true, message: String(e?.message ?? e), code: e?.code ?? null };
  }
}

// firecrawlServer starts Firecrawl's MCP server against the API at url.
async function firecrawlServer(url) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(here, 'node_modules', 'firecrawl-mcp', 'dist', 'index.js')],
    env: { ...process.env, FIRECRAWL_API_URL: url, FIRECRAWL_API_KEY: apiKey },
    stderr: 'ignore',
  });
  const client = new Client({ name: 'crawler-tests', version: '1' });
  await client.connect(transport);
  return client;
}

// Firecrawl's MCP server.
{
  const fc = await firecrawlServer(apiUrl);
  report.firecrawlTools = (await fc.listTools()).tools.map((t) => t.name);
  report.fcScrape = await call(fc, 'firecrawl_scrape', { url: `${site}/s1/p1`, formats: ['markdown'], onlyMainContent: true });
  report.fcScrapeMissing = await call(fc, 'firecrawl_scrape', { url: `${site}/missing`, formats: ['markdown'] });
  report.fcScrapeFormats = await call(fc, 'firecrawl_scrape', { url: `${site}/meta`, formats: ['links', 'html'] });
  report.fcMap = await call(fc, 'firecrawl_map', { url: `${site}/`, limit: 50 });
  report.fcMapSearch = await call(fc, 'firecrawl_map', { url: `${site}/`, search: 'p1', limit: 20 });
  report.fcCrawl = await call(fc, 'firecrawl_crawl', { url: `${site}/`, limit: 5, sitemap: 'skip' });
  const id = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(report.fcCrawl.text ?? '')?.[0] ?? null;
  report.fcCrawlId = id;
  const deadline = Date.now() + 120000;
  do {
    report.fcCrawlStatus = await call(fc, 'firecrawl_check_crawl_status', { id });
    if (!/scraping/.test(report.fcCrawlStatus.text ?? '')) break;
    await new Promise((ok) => setTimeout(ok, 1000));
  } while (Date.now() < deadline);
  // Search with the tool's defaults (it asks for Firecrawl's catalogue
  // too, and searches the web alone when the team has none), then with
  // each web result scraped.
  report.fcSearch = await call(fc, 'firecrawl_search', { query: 'durable crawl service mcp', limit: 3 });
  report.fcSearchScrape = await call(fc, 'firecrawl_search', { query: 'durable crawl service mcp', limit: 2, sources: ['web'],
    scrapeOptions: { formats: ['markdown'], onlyMainContent: true } });
  // A Word document on this machine's disk, parsed through the service.
  report.fcParse = await call(fc, 'firecrawl_parse', { filePath: process.env.PARSE_FILE, formats: ['markdown'] });
  report.fcCredits = await call(fc, 'firecrawl_credit_usage', {});
  report.fcCreditsByKey = await call(fc, 'firecrawl_credit_usage', { byApiKey: true });
  report.fcCrawlBad = await call(fc, 'firecrawl_crawl', { url: `${site}/`, includePaths: ['(?<=x)a'] });

  // Monitors, in the tool's advanced form: a schedule of crawls of one
  // site (the service's schedules).
  report.fcMonitorCreate = await call(fc, 'firecrawl_monitor_create', { body: { name: 'shop', schedule: { cron: '0 3 * * *', timezone: 'UTC' },
    targets: [{ type: 'crawl', url: `${site}/`, crawlOptions: { limit: 5, sitemap: 'skip' } }] } });
  const monitorId = report.fcMonitorCreate.structured?.id ?? /"id":\s*"([0-9a-f-]{36})"/.exec(report.fcMonitorCreate.text ?? '')?.[1] ?? null;
  report.fcMonitorId = monitorId;
  report.fcMonitorList = await call(fc, 'firecrawl_monitor_list', { limit: 50 });
  report.fcMonitorGet = await call(fc, 'firecrawl_monitor_get', { id: monitorId });
  report.fcMonitorRun = await call(fc, 'firecrawl_monitor_run', { id: monitorId });
  const checkDeadline = Date.now() + 60000;
  do {
    report.fcMonitorChecks = await call(fc, 'firecrawl_monitor_checks', { id: monitorId, limit: 10 });
    if (/"status":\s*"(completed|partial|failed)"/.test(report.fcMonitorChecks.text ?? '')) break;
    await new Promise((ok) => setTimeout(ok, 500));
  } while (Date.now() < checkDeadline);
  const checkId = /"id":\s*"([0-9a-f-]{36})"/.exec(report.fcMonitorChecks.text ?? '')?.[1] ?? null;
  report.fcMonitorCheck = await call(fc, 'firecrawl_monitor_check', { id: monitorId, checkId, limit: 10 });
  report.fcMonitorPause = await call(fc, 'firecrawl_monitor_update', { id: monitorId, body: { status: 'paused' } });
  report.fcMonitorDelete = await call(fc, 'firecrawl_monitor_delete', { id: monitorId });
  report.fcMonitorScrape = await call(fc, 'firecrawl_monitor_create', { page: `${site}/`, goal: 'Tell me when the prices change.' });
  report.fcStatusUnknown = await call(fc, 'firecrawl_check_crawl_status', { id: '00000000-0000-4000-8000-000000000000' });
  await fc.close();

  // The json format, through a deployment with an LLM.
  const llm = await firecrawlServer(llmApiUrl);
  report.fcScrapeJson = await call(llm, 'firecrawl_scrape', { url: `${site}/schema-ok`, formats: ['json'],
    jsonOptions: { prompt: 'The product.', schema: { type: 'object', required: ['title', 'price'], properties: { title: { type: 'string' }, price: { type: 'number' } } } } });
  report.fcScrapeSummary = await call(llm, 'firecrawl_scrape', { url: `${site}/schema-ok`, formats: ['summary'] });
  await llm.close();
}

// The service's own MCP endpoint.
{
  const connect = async (key, base = apiUrl) => {
    const client = new Client({ name: 'crawler-tests', version: '1' });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } });
    await client.connect(transport);
    return client;
  };
  try {
    await connect('ck_not_a_key');
    report.ownBadKey = { connected: true };
  } catch (e) {
    report.ownBadKey = { connected: false, message: String(e?.message ?? e) };
  }
  const own = await connect(apiKey);
  report.ownTools = (await own.listTools()).tools.map((t) => t.name);
  report.ownScrape = await call(own, 'scrape', { url: `${site}/s1/p1` });
  report.ownScrapeBad = await call(own, 'scrape', { url: 'ftp://example.com/x' });
  report.ownMap = await call(own, 'map', { url: `${site}/`, limit: 30 });
  report.ownSearch = await call(own, 'search', { query: 'durable crawl service mcp', limit: 2, scrape: true });
  report.ownParse = await call(own, 'parse', { filename: 'kettles.html',
    content: '<html><head><title>Kettles</title></head><body><main><h1>Kettles</h1><p>A steel kettle for the stove.</p></main></body></html>' });
  report.ownParseDocx = await call(own, 'parse', { filename: 'report.docx', contentBase64: process.env.PARSE_DOCX_B64 });
  const ownLLM = await connect(apiKey, llmApiUrl);
  report.ownExtract = await call(ownLLM, 'extract', { urls: [`${site}/schema-list-1`, `${site}/schema-list-2`], prompt: 'The items.' });
  await ownLLM.close();
  report.ownStart = await call(own, 'start_crawl', { url: `${site}/`, options: { maxResults: 25, maxDepth: 3 } });
  const id = report.ownStart.structured?.id;
  const deadline = Date.now() + 120000;
  do {
    report.ownStatus = await call(own, 'crawl_status', { id });
    if (report.ownStatus.structured?.ended) break;
    await new Promise((ok) => setTimeout(ok, 1000));
  } while (Date.now() < deadline);
  report.ownPages1 = await call(own, 'crawl_pages', { id, page: 1, limit: 10 });
  report.ownPages3 = await call(own, 'crawl_pages', { id, page: 3, limit: 10 });
  report.ownList = await call(own, 'list_crawls', { limit: 100 });
  const slow = await call(own, 'start_crawl', { url: `${site}/slow/1`, options: { maxResults: 500 } });
  report.ownCancel = await call(own, 'cancel_crawl', { id: slow.structured?.id });
  report.ownStartBad = await call(own, 'start_crawl', { url: `${site}/`, options: { maxResults: 0 } });
  await own.close();
}

process.stdout.write(JSON.stringify(report) + '\n');
