#!/usr/bin/env node
// Peer crawler for `make bench`: a plain CheerioCrawler (or, with
// --engine playwright, PlaywrightCrawler) run, configured the way a Crawlee
// user would run it (on-disk storage, same-hostname link following), doing
// the same per-page work as our service (main content -> markdown).
//
// Usage:
//   node crawl.mjs --start-url URL --concurrency N --max-pages M --storage DIR
//                  [--engine cheerio|playwright] [--wait-for SELECTOR]
//
// With playwright, Chromium is the one at $CRAWLER_CHROMIUM_PATH (default
// /usr/lib/chromium/chromium; nothing is downloaded),
// and each page is read once --wait-for (default "main") is in the rendered
// page: the earliest moment a user who knows the site could read it.
//
// stdout: exactly one JSON line {"pages": n, "failed": n, "seconds": f}.
// Everything else goes to stderr.

import { parseArgs } from 'node:util';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

function usage(msg) {
    if (msg) process.stderr.write(`crawl.mjs: ${msg}\n`);
    process.stderr.write('usage: node crawl.mjs --start-url URL --concurrency N --max-pages M --storage DIR ' +
        '[--engine cheerio|playwright] [--wait-for SELECTOR]\n');
    process.exit(2);
}

let args;
try {
    ({ values: args } = parseArgs({
        options: {
            'start-url': { type: 'string' },
            concurrency: { type: 'string' },
            'max-pages': { type: 'string' },
            storage: { type: 'string' },
            engine: { type: 'string', default: 'cheerio' },
            'wait-for': { type: 'string', default: 'main' },
        },
        strict: true,
    }));
} catch (err) {
    usage(err.message);
}

const startUrl = args['start-url'];
const concurrency = Number.parseInt(args.concurrency ?? '', 10);
const maxPages = Number.parseInt(args['max-pages'] ?? '', 10);
const storageDir = args.storage;

if (!startUrl) usage('--start-url is required');
try {
    new URL(startUrl);
} catch {
    usage(`invalid --start-url: ${startUrl}`);
}
if (!Number.isInteger(concurrency) || concurrency < 1) usage('--concurrency must be a positive integer');
if (!Number.isInteger(maxPages) || maxPages < 1) usage('--max-pages must be a positive integer');
if (!storageDir) usage('--storage is required');
if (args.engine !== 'cheerio' && args.engine !== 'playwright') usage('--engine must be cheerio or playwright');

// Keep stdout clean for the single result line: anything that writes through
// console.log/info/debug (Crawlee's logger uses console.log below WARNING)
// goes to stderr instead.
const toStderr = (...a) => console.error(...a);
console.log = toStderr;
console.info = toStderr;
console.debug = toStderr;

// Storage location must be known before Crawlee creates its storage client.
const localDataDirectory = path.resolve(storageDir);
process.env.CRAWLEE_STORAGE_DIR = localDataDirectory;

const { Configuration, log } = await import('@crawlee/cheerio');
const { default: TurndownService } = await import('turndown');

log.setLevel(log.LEVELS.WARNING);

const config = new Configuration({
    storageClientOptions: { localDataDirectory, persistStorage: true },
    persistStorage: true,
    purgeOnStart: true,
});

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced' });

// store converts a parsed page's main content and saves it.
async function store(request, $, pushData) {
    const main = $('main').first();
    const root = main.length ? main : $('body').first();
    const html = root.length ? root.html() ?? '' : $.html();
    const markdown = turndown.turndown(html);
    const title = $('title').first().text().trim();
    await pushData({ url: request.loadedUrl ?? request.url, title, markdown });
}

const common = {
    minConcurrency: concurrency,
    maxConcurrency: concurrency,
    maxRequestsPerCrawl: maxPages,
    maxRequestRetries: 3,
    requestHandlerTimeoutSecs: 60,
    navigationTimeoutSecs: 30,
};

let crawler;
if (args.engine === 'cheerio') {
    const { CheerioCrawler } = await import('@crawlee/cheerio');
    crawler = new CheerioCrawler(
        {
            ...common,
            async requestHandler({ request, $, pushData, enqueueLinks }) {
                await store(request, $, pushData);
                await enqueueLinks({ strategy: 'same-hostname' });
            },
        },
        config,
    );
} else {
    const { PlaywrightCrawler } = await import('@crawlee/playwright');
    const { chromium } = await import('playwright');
    crawler = new PlaywrightCrawler(
        {
            ...common,
            launchContext: {
                launcher: chromium,
                launchOptions: { executablePath: process.env.CRAWLER_CHROMIUM_PATH || '/usr/lib/chromium/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] },
            },
            async requestHandler({ request, page, parseWithCheerio, pushData, enqueueLinks }) {
                await page.waitForSelector(args['wait-for'], { timeout: 30000 });
                await store(request, await parseWithCheerio(), pushData);
                await enqueueLinks({ strategy: 'same-hostname' });
            },
        },
        config,
    );
}

const t0 = performance.now();
const stats = await crawler.run([startUrl]);
const seconds = (performance.now() - t0) / 1000;

process.stdout.write(
    `${JSON.stringify({
        pages: stats.requestsFinished,
        failed: stats.requestsFailed,
        seconds,
    })}\n`,
);
