// Runs LangChain's FireCrawlLoader (@langchain/community, on Firecrawl's JS
// SDK; both pinned in package-lock.json) against the service's
// Firecrawl-compatible API in its three modes and prints what each load
// gave, as one JSON object, for integration/langchain_test.go to check.
//
//   node load.mjs API_URL API_KEY SITE_URL
import { FireCrawlLoader } from '@langchain/community/document_loaders/web/firecrawl';

const [apiUrl, apiKey, site] = process.argv.slice(2);
const report = {};

// load records the documents a loader gave (their text's length, a piece
// of it, and their metadata), or what it threw.
async function load(name, url, mode, params) {
  try {
    const docs = await new FireCrawlLoader({ url, apiKey, apiUrl, mode, params }).load();
    report[name] = docs.map((d) => ({ chars: d.pageContent.length, text: d.pageContent.slice(0, 2000), metadata: d.metadata }));
  } catch (e) {
    report[name] = { thrown: true, message: String(e?.message ?? e) };
  }
}

await load('scrape', `${site}/`, 'scrape', { formats: ['markdown'] });
await load('scrapeMissing', `${site}/gone`, 'scrape', { formats: ['markdown'] });
await load('crawl', `${site}/`, 'crawl', { limit: 10, scrapeOptions: { formats: ['markdown'] } });
await load('map', `${site}/`, 'map', {});
process.stdout.write(JSON.stringify(report));
